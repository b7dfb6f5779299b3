package engines

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// Options are what a generative engine is built from.
type Options struct {
	Config Config // validated
	Kind   Kind
	// Builtin renders what the backend cannot and finishes every picture; Swapper is the
	// builtin face swap; Faces finds faces before a backend is asked to swap one.
	Builtin *builtin.Engine
	Swapper core.FaceSwapper
	Faces   core.FaceDetector
	Logger  *slog.Logger
	// Metrics is where the pool's instruments are registered (nil: nowhere).
	Metrics prometheus.Registerer
	// Client is the backends' HTTP client; nil builds one (no overall timeout: each
	// request is bounded by its context).
	Client *http.Client
	// Decode decodes the backends' pictures; nil is DecodePicture.
	Decode DecodeFunc
}

// Engine drives a pool of generative backends behind core.Engine and core.FaceSwapper:
// it builds the prompt, crops inputs to the backend's size, sends the request, decodes
// the answer, crops it to the exact output size and lays the builtin's layers over it.
// What the backend cannot do runs on the builtin.
type Engine struct {
	opts   Options
	pool   *pool
	caps   Caps
	size   func(core.Format) (int, int)
	stop   func()
	redact func(string) string
}

var (
	_ core.Engine      = (*Engine)(nil)
	_ core.FaceSwapper = (*Engine)(nil)
	_ core.StyleImager = (*Engine)(nil)
)

// New builds the backends of every URL and starts watching their health.
func New(opts Options) (*Engine, error) {
	cfg := opts.Config
	if opts.Builtin == nil || opts.Swapper == nil || opts.Kind.New == nil {
		return nil, errors.New("engines: the builtin engine, face swapper and kind are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Client == nil {
		opts.Client = NewClient(len(cfg.URLs) * cfg.Concurrency)
	}
	if opts.Decode == nil {
		opts.Decode = DecodePicture
	}
	e := &Engine{opts: opts, redact: redactor(cfg.Key)}
	var backends []Backend
	for _, u := range cfg.URLs {
		b, err := opts.Kind.New(BackendConfig{URL: u, Key: cfg.Key, Model: cfg.Model, Workflows: cfg.Workflows, Client: opts.Client, Logger: opts.Logger})
		if err != nil {
			return nil, fmt.Errorf("engine %s at %s: %s", cfg.Kind, Label(u), e.redact(err.Error()))
		}
		backends = append(backends, b)
	}
	m, err := newMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	e.pool = newPool(backends, cfg.URLs, cfg.Concurrency, m)
	e.caps, e.size = backends[0].Caps(), backends[0].Size
	e.stop = e.pool.watch(cfg.HealthInterval)
	return e, nil
}

// NewClient is an HTTP client for backends: they are the operator's, so no address
// guard; connections are kept for reuse (up to conns idle per host); no overall timeout,
// as generations take minutes and the request's context bounds each one.
func NewClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConnsPerHost:   max(2, conns),
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// redactor returns a function that removes the key from a text bound for the log.
func redactor(key string) func(string) string {
	return func(s string) string {
		if key == "" {
			return s
		}
		return strings.ReplaceAll(s, key, "[redacted]")
	}
}

// Close stops the health watch.
func (e *Engine) Close() error {
	e.stop()
	return nil
}

// Caps are the operations the backends do themselves.
func (e *Engine) Caps() Caps { return e.caps }

// UsesStyleImages reports whether styles go to the backend as images.
func (e *Engine) UsesStyleImages() bool { return e.caps.Has(CapStyle) }

// Score rates a thumbnail with the builtin scorer.
func (e *Engine) Score(ctx context.Context, img image.Image) (core.Score, error) {
	return e.opts.Builtin.Score(ctx, img)
}

// Health pings every backend now and returns their states, for /readyz.
func (e *Engine) Health(ctx context.Context) []BackendHealth {
	e.pool.pingAll(ctx, false, 2*time.Second)
	return e.pool.snapshot()
}

// Snapshot returns the backends' states as last seen, without pinging.
func (e *Engine) Snapshot() []BackendHealth { return e.pool.snapshot() }

// generate sends req through the pool and decodes the picture. Backend failures become
// public errors here, with the backend's text kept for the log only.
func (e *Engine) generate(ctx context.Context, req *Request) (image.Image, error) {
	core.ReportProgress(ctx, 5)
	// Adapters report the backend's own progress (0..100); it fills 5..90 of the whole.
	bctx := core.WithProgress(ctx, func(pct int) { core.ReportProgress(ctx, 5+pct*85/100) })
	data, err := e.pool.do(bctx, e.opts.Logger, e.redact, func(ctx context.Context, b Backend) ([]byte, error) {
		return b.Generate(ctx, req)
	})
	if err != nil {
		return nil, e.public(ctx, err)
	}
	img, err := e.opts.Decode(ctx, data)
	if err != nil {
		return nil, e.public(ctx, err)
	}
	core.ReportProgress(ctx, 90)
	return img, nil
}

// public maps a backend failure onto the API's codes: a safety refusal is
// GENERATION_REJECTED, backends busy past the deadline GENERATION_TIMEOUT, anything
// else GENERATION_FAILED; the end of ctx stays as it is (the service makes it
// CANCELLED or GENERATION_TIMEOUT). The cause keeps the backend's text, key removed,
// for the log.
func (e *Engine) public(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	cause := errors.New(e.redact(err.Error()))
	if errors.Is(err, errBusyPastDeadline) {
		return core.Wrap(core.CodeGenerationTimeout, cause, "The image backends are busy; the image could not be generated in time.")
	}
	if _, class := classOf(err); class == ClassRefused {
		return &core.Error{Code: core.CodeGenerationRejected, Message: "The image model refused this request (content policy).",
			Err: fmt.Errorf("%w: %w", core.ErrModeration, cause)}
	}
	return core.Wrap(core.CodeGenerationFailed, cause, "The image model failed to produce an image.")
}
