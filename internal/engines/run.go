package engines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"thumbforge/internal/core"
)

// errBusyPastDeadline means every backend is busy for longer than the request has left.
var errBusyPastDeadline = errors.New("the backends are busy past the generation deadline")

// defaultRetryAfter is the wait after a 429 that did not say how long.
const defaultRetryAfter = time.Second

// maxBusyRetries bounds retries of a request without a deadline (the service always
// sets one; this only keeps a misuse from looping for ever).
const maxBusyRetries = 8

// do runs fn on a backend of the pool: a backend that cannot be reached is marked
// unhealthy and the next one is tried; a busy one (429) is sat out for its Retry-After
// while the deadline allows. It returns the first answer, the last failure, or ctx's
// error when ctx ends.
func (p *pool) do(ctx context.Context, log *slog.Logger, redact func(string) string, fn func(context.Context, Backend) ([]byte, error)) ([]byte, error) {
	exclude := map[*member]bool{}
	var last error
	for attempt := 0; ; attempt++ {
		m, err := p.acquire(ctx, exclude)
		switch {
		case errors.Is(err, errNoBackend):
			return nil, last
		case err != nil:
			return nil, err
		}
		start := p.now()
		p.m.inFlight.WithLabelValues(m.label).Inc()
		data, err := fn(ctx, m.backend)
		p.m.inFlight.WithLabelValues(m.label).Dec()
		p.release(m)
		p.m.latency.WithLabelValues(m.label).Observe(p.now().Sub(start).Seconds())
		if err == nil {
			p.m.requests.WithLabelValues(m.label, outcomeOK).Inc()
			p.setHealthIfChanged(m, true, "")
			return data, nil
		}
		if ctx.Err() != nil {
			outcome := outcomeCancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				outcome = outcomeTimeout
			}
			p.m.requests.WithLabelValues(m.label, outcome).Inc()
			return nil, ctx.Err()
		}
		e, class := classOf(err)
		p.m.requests.WithLabelValues(m.label, class.String()).Inc()
		log.WarnContext(ctx, "engine backend failed", "request_id", core.RequestID(ctx),
			"backend", m.label, "class", class.String(), "err", redact(err.Error()))
		last = err
		switch class {
		case ClassUnavailable:
			p.setHealthIfChanged(m, false, publicReason(e))
			exclude[m] = true
		case ClassBusy:
			d := e.RetryAfter
			if d <= 0 {
				d = defaultRetryAfter
			}
			dl, ok := ctx.Deadline()
			if ok && p.now().Add(d).After(dl) || !ok && attempt >= maxBusyRetries {
				return nil, fmt.Errorf("%w: %w", errBusyPastDeadline, err)
			}
			p.busy(m, d)
		default:
			return nil, err
		}
	}
}

// setHealthIfChanged records m's health when it differs from what the pool believes.
func (p *pool) setHealthIfChanged(m *member, healthy bool, reason string) {
	p.mu.Lock()
	same := m.healthy == healthy && (healthy || m.reason == reason)
	p.mu.Unlock()
	if !same {
		p.setHealth(m, healthy, reason)
	}
}

// publicReason says why a backend is unhealthy in words safe for /readyz: the status
// or "unreachable", never the backend's text.
func publicReason(e *Error) string {
	switch {
	case e == nil:
		return "failed"
	case e.Status == 401 || e.Status == 403:
		return fmt.Sprintf("key refused (HTTP %d)", e.Status)
	case e.Status != 0:
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return "unreachable"
}
