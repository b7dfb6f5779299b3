package app

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"thumbforge/internal/api"
	"thumbforge/internal/blob"
	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/faces"
	"thumbforge/internal/inputs"
	"thumbforge/internal/jpegenc"
	"thumbforge/internal/jpegscale"
	"thumbforge/internal/memory"
	"thumbforge/internal/policy"
	"thumbforge/internal/titles"
	"thumbforge/internal/training"
)

// App is a running thumbforge: main runs it and so do the end-to-end tests.
type App struct {
	cfg     Config
	log     *slog.Logger
	Store   core.Store
	Blobs   core.Blobs
	Service *core.Service
	API     *api.Server
	Metrics *api.Metrics
	closers []func() error
	// Budget is the process's memory budget (internal/memory).
	Budget *memory.Budget
	work   background      // training queue and trainer (jobs.go)
	gen    *engines.Engine // the generative engine, nil for the builtin (engine.go)

	srv  *http.Server
	addr string
	wg   sync.WaitGroup
	stop context.CancelFunc
}

// pinger is a dependency that can say whether it is reachable.
type pinger interface {
	Ping(ctx context.Context) error
}

// New builds the app from cfg without listening yet.
func New(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: cfg.Logger}
	if err := a.build(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) build(ctx context.Context) error {
	cfg := a.cfg
	if cfg.Database == "" {
		unlock, err := lockDataDir(cfg.DataDir)
		if err != nil {
			return err
		}
		a.closers = append(a.closers, unlock)
	}
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	a.Store = st
	a.closers = append(a.closers, st.Close)

	var files http.Handler
	if cfg.Blobs != "" {
		s3, err := blob.NewS3Store(ctx, cfg.Blobs)
		if err != nil {
			return fmt.Errorf("open blob store: %w", err)
		}
		a.Blobs = s3
	} else {
		secret, err := blob.LoadOrCreateSecret(cfg.DataDir)
		if err != nil {
			return fmt.Errorf("link-signing secret: %w", err)
		}
		public := cfg.PublicURL
		if public == "" {
			public = "http://" + cfg.Addr
		}
		fs, err := blob.NewFileStore(blob.FileConfig{
			Dir: cfg.DataDir + "/blobs", PublicURL: strings.TrimRight(public, "/"), Secret: secret, Now: cfg.Now,
		})
		if err != nil {
			return fmt.Errorf("open blob store: %w", err)
		}
		a.Blobs = fs
		files = fs.ServeFiles()
	}

	// A reservation waits at most one generation deadline: a request kept waiting longer
	// could not finish its work anyway.
	if a.Budget, err = memory.New(cfg.MemoryBudget, cfg.Timeouts.Generation); err != nil {
		return err
	}
	detector, err := faces.NewDetector()
	if err != nil {
		return fmt.Errorf("face detector: %w", err)
	}
	eng, err := builtin.New(builtin.Config{Faces: detector})
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	a.Metrics = api.NewMetrics()
	engine, swapper, err := a.openEngine(eng, detector) // engine.go: builtin or a backend pool
	if err != nil {
		return err
	}
	loader, err := inputs.New(inputs.Config{AllowPrivate: cfg.AllowPrivateFetch, TLSConfig: cfg.FetchTLS,
		Decoder: jpegscale.Decode, DecodeMinSide: 1280, Budget: a.Budget})
	if err != nil {
		return fmt.Errorf("image inputs: %w", err)
	}
	pol := policy.Default()
	if cfg.PolicyFile != "" {
		if pol, err = policy.Load(cfg.PolicyFile); err != nil {
			return fmt.Errorf("content policy: %w", err)
		}
	}
	var titler core.Titler = &titles.Builtin{Faces: detector}
	if cfg.TitlesURL != "" {
		llm := &titles.LLM{BaseURL: cfg.TitlesURL, Model: cfg.TitlesModel, APIKey: cfg.TitlesKey, Fallback: titler}
		if err := llm.Validate(); err != nil {
			return fmt.Errorf("titles API: %w", err)
		}
		titler = llm
	}

	queue, err := a.openQueue(ctx)
	if err != nil {
		return err
	}
	hooks, err := a.openWebhooks(queue) // webhooks.go
	if err != nil {
		return err
	}
	atStep, err := crashHook() // ledger.go: the test-only crash knob
	if err != nil {
		return err
	}
	svc, err := core.NewService(core.ServiceConfig{
		Store: st, Blobs: a.Blobs, Engine: engine, Swapper: swapper, Titler: titler,
		Policy: pol, Images: loader, Prices: cfg.Prices, Timeouts: cfg.Timeouts, Logger: a.log,
		Now: cfg.Now, OnCharge: a.Metrics.Charged, Encode: encodeOutput,
		Jobs: queue, Training: &training.Reader{Loader: loader}, Faces: detector, Reserve: a.reserve,
		Events: hooks, SettleGrace: cfg.SettleGrace, AtStep: atStep,
		Requests: queue, AsyncWait: cfg.AsyncWait, ProgressInterval: cfg.ProgressInterval,
		// The API, built below, counts asynchronous work in its keys' in-flight slots; work
		// starts only once the app has.
		Slots: func(ctx context.Context, p core.Principal) (func(), bool, error) { return a.API.WorkSlot(ctx, p) },
	})
	if err != nil {
		return err
	}
	a.Service = svc
	if err := a.newTrainer(svc, loader, eng, detector); err != nil {
		return err
	}
	lim, err := a.openLimiter(st) // limiter.go: cluster-wide on PostgreSQL
	if err != nil {
		return err
	}
	pages, err := a.console(ctx)
	if err != nil {
		return err
	}
	a.API, err = api.New(api.Config{
		Service: svc, Limiter: lim, Logger: a.log, Metrics: a.Metrics, Files: files,
		Ready: a.ready, ReadyDetails: a.readyDetails, MaintenanceTTL: cfg.MaintenanceTTL, Pages: pages,
		Budget: a.Budget, MaxInFlight: cfg.MaxInFlight, LimitScope: cfg.LimitScope,
		IdempotencyLease: cfg.requestLease(),
	})
	return err
}

// ready checks the store, the blob store and the engine's backends.
func (a *App) ready(ctx context.Context) error {
	if err := a.Store.Ping(ctx); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if p, ok := a.Blobs.(pinger); ok {
		if err := p.Ping(ctx); err != nil {
			return fmt.Errorf("blobs: %w", err)
		}
	}
	return a.engineReady(ctx)
}

// Start listens on ln (or cfg.Addr when ln is nil) and serves in the background, with
// the periodic sweeps.
func (a *App) Start(ln net.Listener) error {
	// Holds left by a crash settle before any new work: at once on SQLite, where nothing
	// else can be at work; past their deadlines on PostgreSQL (the periodic sweep).
	if err := a.reconcile(context.Background(), a.exclusive()); err != nil {
		a.log.Error("reconcile at start", "err", err)
	}
	if err := a.startJobs(context.Background()); err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", a.cfg.Addr); err != nil {
			return errors.Join(err, a.stopJobs(context.Background()))
		}
	}
	a.addr = ln.Addr().String()
	a.srv = &http.Server{
		Handler:           a.API,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	a.wg.Add(2)
	go func() {
		defer a.wg.Done()
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("serve", "err", err)
		}
	}()
	go func() {
		defer a.wg.Done()
		a.sweepLoop(ctx)
	}()
	a.log.Info("thumbforge listening", "addr", a.addr)
	return nil
}

// Addr is the address the app listens on, once started.
func (a *App) Addr() string { return a.addr }

// URL is the app's base URL, once started.
func (a *App) URL() string { return "http://" + a.addr }

// Shutdown stops accepting, waits for in-flight requests (bounded by ctx), and closes.
func (a *App) Shutdown(ctx context.Context) error {
	var err error
	if a.srv != nil {
		err = a.srv.Shutdown(ctx)
	}
	err = errors.Join(err, a.stopJobs(ctx))
	if a.stop != nil {
		a.stop()
	}
	a.wg.Wait()
	return errors.Join(err, a.Close())
}

// Close releases the app's resources.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

func (a *App) sweepLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.Sweep(ctx); err != nil && ctx.Err() == nil {
				a.log.Error("sweep", "err", err)
			}
		}
	}
}

// reserve takes n bytes of the memory budget until the returned function is called.
func (a *App) reserve(ctx context.Context, n int64) (func(), error) {
	r, err := a.Budget.Reserve(ctx, n)
	if err != nil {
		return nil, err
	}
	return r.Release, nil
}

// encodeOutput writes a generated image with the fast encoder, at the service's quality.
func encodeOutput(w io.Writer, img image.Image) error {
	return jpegenc.Encode(w, img, core.OutputQuality)
}
