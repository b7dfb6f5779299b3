// Package jobs runs thumbforge's background work on a persistent job queue (River): on
// SQLite for one machine, on PostgreSQL when scaled out. Jobs are rows in the database,
// so they survive restarts; failures are retried with backoff.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Handler does the work of a training job. lastAttempt says that no retry follows if it
// fails, so the handler must record the failure itself.
type Handler interface {
	Train(ctx context.Context, id uuid.UUID, lastAttempt bool) error
}

// Config tunes the queue; zero fields take the defaults.
type Config struct {
	// Workers is how many training jobs run at once (default 2).
	Workers int
	// JobTimeout bounds one attempt of a job (default 5 minutes).
	JobTimeout time.Duration
	// RescueAfter is how long after its start a job still marked running is taken for one
	// whose process died, and retried (default JobTimeout + 1 minute; must exceed
	// JobTimeout). River (v0.47) fixes the rest: its elected leader looks for such jobs
	// when elected and every 30 s after; a dead leader is replaced within about 21 s (15 s
	// lease, 5-6 s between bids); a rescued job waits its retry backoff and up to 5 s for
	// River's scheduler. So a dead process's job runs again within about RescueAfter + 35 s
	// of its start, or the leader takeover + 5 s if that comes later.
	RescueAfter time.Duration
	// MaxAttempts is how many times a job runs before it is given up (default 5).
	MaxAttempts int
	// RetryBase is the delay before the first retry; it doubles per attempt up to RetryMax
	// (defaults 1 s and 5 minutes).
	RetryBase, RetryMax time.Duration
	// PollInterval is how often the queue looks for new jobs (default 200 ms).
	PollInterval time.Duration
	// WebhookRetries are the waits after each failed webhook delivery (default
	// DefaultWebhookRetries); WebhookWindow is how long an event is retried (default 24 h);
	// WebhookWorkers how many deliveries run at once (default 4).
	WebhookRetries []time.Duration
	WebhookWindow  time.Duration
	WebhookWorkers int
	// RequestWorkers is how many asynchronous requests run at once in this process
	// (default 4).
	RequestWorkers int
	// RequestTimeout bounds one attempt of an asynchronous request's job (default
	// JobTimeout): longer than the request's own deadline, which ends its work first.
	RequestTimeout time.Duration
	// Logger receives the queue's warnings and errors.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = 5 * time.Minute
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = c.JobTimeout
	}
	if c.RescueAfter <= 0 {
		c.RescueAfter = max(c.JobTimeout, c.RequestTimeout) + time.Minute
	}
	if c.RequestTimeout >= c.RescueAfter {
		// A job still running at RescueAfter would be run twice: a rescue this short
		// shortens the requests' jobs too.
		c.RequestTimeout = c.RescueAfter - min(time.Second, c.RescueAfter/2)
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.RetryBase <= 0 {
		c.RetryBase = time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 5 * time.Minute
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if len(c.WebhookRetries) == 0 {
		c.WebhookRetries = DefaultWebhookRetries
	}
	if c.WebhookWindow <= 0 {
		c.WebhookWindow = DefaultWebhookWindow
	}
	if c.WebhookWorkers <= 0 {
		c.WebhookWorkers = 4
	}
	if c.RequestWorkers <= 0 {
		c.RequestWorkers = 4
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.RetryMax < c.RetryBase {
		return errors.New("jobs: RetryMax must not be shorter than RetryBase")
	}
	for _, d := range c.WebhookRetries {
		if d <= 0 {
			return errors.New("jobs: webhook retry waits must be positive")
		}
	}
	if c.RescueAfter <= c.JobTimeout {
		// River would rescue (and run twice) jobs that are still within their deadline.
		return fmt.Errorf("jobs: RescueAfter (%v) must be longer than JobTimeout (%v)", c.RescueAfter, c.JobTimeout)
	}
	return nil
}

// client is what the queue needs of a River client, whatever its driver's transaction type.
type client interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// Queue is the persistent job queue. It implements core.TrainingQueue.
type Queue struct {
	cfg      Config
	client   client
	handler  Handler
	webhooks WebhookHandler
	requests RequestHandler
	closers  []func() error
	started  bool
}

// trainingQueue is the River queue training jobs run on.
const trainingQueue = "training"

// trainingArgs is the payload of a training job: only the record's id, the record itself
// (and its stored images) being the job's state.
type trainingArgs struct {
	ModelID uuid.UUID `json:"model_id"`
}

// Kind names training jobs in River's table.
func (trainingArgs) Kind() string { return "custom_model_training" }

// trainingWorker runs training jobs through the queue's handler.
type trainingWorker struct {
	river.WorkerDefaults[trainingArgs]
	q *Queue
}

func (w *trainingWorker) Work(ctx context.Context, job *river.Job[trainingArgs]) error {
	if w.q.handler == nil {
		return errors.New("jobs: no training handler")
	}
	return w.q.handler.Train(ctx, job.Args.ModelID, job.Attempt >= job.MaxAttempts)
}

func (w *trainingWorker) Timeout(*river.Job[trainingArgs]) time.Duration { return w.q.cfg.JobTimeout }

// backoff doubles the delay per attempt from RetryBase up to RetryMax.
type backoff struct{ base, max time.Duration }

// NextRetry schedules the next attempt of a failed job.
func (b backoff) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(b.delay(job.Attempt))
}

// delay is the wait after the given failed attempt (1-based).
func (b backoff) delay(attempt int) time.Duration {
	d := b.base
	for i := 1; i < attempt && d < b.max; i++ {
		d *= 2
	}
	return min(d, b.max)
}

// newQueue migrates River's tables and builds a client on driver.
func newQueue[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], cfg Config) (*Queue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet(cfg.Logger)})
	if err != nil {
		return nil, fmt.Errorf("jobs: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("jobs: migrate: %w", err)
	}
	q := &Queue{cfg: cfg}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &trainingWorker{q: q}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &webhookWorker{q: q}); err != nil {
		return nil, err
	}
	if err := river.AddWorkerSafely(workers, &requestWorker{q: q}); err != nil {
		return nil, err
	}
	c, err := river.NewClient(driver, &river.Config{
		Queues: map[string]river.QueueConfig{
			trainingQueue: {MaxWorkers: cfg.Workers},
			webhookQueue:  {MaxWorkers: cfg.WebhookWorkers},
			requestQueue:  {MaxWorkers: cfg.RequestWorkers},
		},
		Workers:           workers,
		MaxAttempts:       cfg.MaxAttempts,
		JobTimeout:        cfg.JobTimeout,
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     min(cfg.PollInterval, 10*time.Millisecond),
		// A job still "running" this long after its start, past its deadline, belonged to
		// a dead process.
		RescueStuckJobsAfter: cfg.RescueAfter,
		RetryPolicy:          backoff{base: cfg.RetryBase, max: cfg.RetryMax},
		Logger:               quiet(cfg.Logger),
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: client: %w", err)
	}
	q.client = c
	return q, nil
}

// quiet passes on River's warnings and errors only: its info lines are per-job noise.
func quiet(l *slog.Logger) *slog.Logger {
	return slog.New(levelHandler{Handler: l.Handler(), min: slog.LevelWarn})
}

type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}

// EnqueueTraining adds a training job for the record id. Enqueueing a record whose job is
// already waiting, running or done does nothing, so recovery may enqueue freely.
func (q *Queue) EnqueueTraining(ctx context.Context, id uuid.UUID) error {
	_, err := q.client.Insert(ctx, trainingArgs{ModelID: id}, &river.InsertOpts{
		Queue:      trainingQueue,
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return fmt.Errorf("jobs: enqueue training: %w", err)
	}
	return nil
}

// Start begins working jobs with h until Stop.
func (q *Queue) Start(ctx context.Context, h Handler) error {
	if h == nil {
		return errors.New("jobs: a handler is required")
	}
	q.handler = h
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	q.started = true
	return nil
}

// Stop lets running jobs finish until ctx ends, then cancels them; waiting jobs stay in
// the database for the next start.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.started {
		return nil
	}
	q.started = false
	err := q.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return errors.Join(err, q.client.StopAndCancel(cctx))
	}
	return err
}

// Close releases the queue's own database handle, if it has one.
func (q *Queue) Close() error {
	var errs []error
	for i := len(q.closers) - 1; i >= 0; i-- {
		errs = append(errs, q.closers[i]())
	}
	q.closers = nil
	return errors.Join(errs...)
}
