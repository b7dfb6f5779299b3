package core

import "context"

type requestIDKey struct{}

// WithRequestID returns a context carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id carried by ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

type progressKey struct{}

// WithProgress returns a context whose work reports its progress (0..100) to fn. Engines
// call ReportProgress as they go; asynchronous requests show it to their callers.
func WithProgress(ctx context.Context, fn func(percent int)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress tells the work's observer, if any, how far it is (clamped to 0..100).
func ReportProgress(ctx context.Context, percent int) {
	fn, _ := ctx.Value(progressKey{}).(func(int))
	if fn == nil {
		return
	}
	fn(min(max(percent, 0), 100))
}
