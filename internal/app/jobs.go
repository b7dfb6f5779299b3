package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/faces"
	"thumbforge/internal/inputs"
	"thumbforge/internal/jobs"
	"thumbforge/internal/store/postgres"
	"thumbforge/internal/training"
)

// TrainingDelayEnv names a test-only knob: a Go duration that every training stage waits,
// so tests can kill a server in the middle of training. Unset in production.
const TrainingDelayEnv = "THUMBFORGE_TRAINING_DELAY"

// background is the job queue and what its jobs run.
type background struct {
	queue   *jobs.Queue
	trainer *training.Trainer
}

// openQueue opens the persistent job queue in the app's database: River's tables beside
// the app's in the SQLite file, or in the PostgreSQL database.
func (a *App) openQueue(ctx context.Context) (*jobs.Queue, error) {
	cfg := jobs.Config{JobTimeout: a.cfg.JobTimeout, RescueAfter: a.cfg.JobRescueAfter, Logger: a.log,
		WebhookRetries: a.cfg.WebhookRetries, RequestWorkers: a.cfg.AsyncWorkers,
		// An asynchronous request's work ends at its own deadline; its job outlasts it.
		RequestTimeout: a.cfg.Timeouts.Longest() + 30*time.Second}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("job queue (--job-timeout %v, --job-rescue-after %v): %w", a.cfg.JobTimeout, a.cfg.JobRescueAfter, err)
	}
	var q *jobs.Queue
	var err error
	if pg, ok := a.Store.(*postgres.Store); ok {
		// The queue shares the store's pool: the store leaves a quarter of it to pgx users.
		q, err = jobs.OpenPostgres(ctx, pg.Pool(), cfg)
	} else {
		q, err = jobs.OpenSQLite(ctx, a.cfg.SQLitePath(), cfg)
	}
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, q.Close)
	a.work.queue = q
	return q, nil
}

// newTrainer builds what training jobs run.
func (a *App) newTrainer(svc *core.Service, loader *inputs.Loader, eng core.Engine, det *faces.Detector) error {
	var delay time.Duration
	if v := os.Getenv(TrainingDelayEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%s=%q: want a duration such as 2s", TrainingDelayEnv, v)
		}
		delay = d
	}
	t, err := training.New(training.Config{Service: svc, Images: loader, Engine: eng, Faces: det,
		Crop: faces.AlignedCrop, StageDelay: delay, Logger: a.log})
	a.work.trainer = t
	return err
}

// startJobs starts the queue's workers and re-enqueues records left processing without a
// job (a crash between storing a record and queueing it); enqueueing is idempotent.
func (a *App) startJobs(ctx context.Context) error {
	if a.work.queue == nil {
		return errors.New("job queue not opened")
	}
	a.work.queue.HandleRequests(a.Service)
	if err := a.work.queue.Start(context.Background(), a.work.trainer); err != nil {
		return err
	}
	// An asynchronous request accepted by a process that died before queueing its job
	// gets one now; enqueueing is idempotent.
	open, err := a.Store.OpenAsyncRequests(ctx)
	if err != nil {
		return fmt.Errorf("resume requests: %w", err)
	}
	for _, id := range open {
		if err := a.work.queue.EnqueueRequest(ctx, id); err != nil {
			return fmt.Errorf("resume requests: %w", err)
		}
	}
	accounts, err := a.Store.ListAccounts(ctx)
	if err != nil {
		return fmt.Errorf("resume training: %w", err)
	}
	for _, acct := range accounts {
		models, err := a.Store.ListCustomModels(ctx, acct.ID)
		if err != nil {
			return fmt.Errorf("resume training: %w", err)
		}
		for _, m := range models {
			// A record whose inputs were never all saved has no job to run: the
			// reconciler fails it once its creation's deadline has passed.
			if m.Status == core.StatusProcessing && !core.SourcePending(&m) {
				if err := a.work.queue.EnqueueTraining(ctx, m.ID); err != nil {
					return fmt.Errorf("resume training: %w", err)
				}
			}
		}
	}
	return nil
}

// stopJobs lets running jobs finish within ctx; queued ones wait for the next start.
func (a *App) stopJobs(ctx context.Context) error {
	if a.work.queue == nil {
		return nil
	}
	return a.work.queue.Stop(ctx)
}
