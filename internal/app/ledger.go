package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/store/sqlite"
	"thumbforge/internal/webhooks"
)

// CrashAtEnv names a test-only knob: a step of paid work (core.Steps) at which the process
// kills itself with SIGKILL, so that tests can check that credits settle after a crash at
// every step. Unset in production.
const CrashAtEnv = "THUMBFORGE_CRASH_AT"

// RequestRetention is how long a finished request stays recorded.
const RequestRetention = 24 * time.Hour

// crashHook returns the AtStep hook the crash knob asks for, or nil.
func crashHook() (func(string), error) {
	step := os.Getenv(CrashAtEnv)
	if step == "" {
		return nil, nil
	}
	if !slices.Contains(core.Steps, step) {
		return nil, fmt.Errorf("%s=%q: not a step of paid work (%v)", CrashAtEnv, step, core.Steps)
	}
	return func(s string) {
		if s != step {
			return
		}
		self, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = self.Kill() // SIGKILL: nothing deferred runs, as in a real crash
		}
		panic(fmt.Sprintf("%s: could not kill the process: %v", CrashAtEnv, err))
	}, nil
}

// reconcile runs one pass of the credit reconciler and reports what it did.
func (a *App) reconcile(ctx context.Context, exclusive bool) error {
	res, err := a.Service.Reconcile(ctx, exclusive)
	a.Metrics.Settled(string(core.HoldCharge), res.Charged)
	a.Metrics.Settled(string(core.HoldRelease), res.Released)
	a.Metrics.Settled(string(core.HoldExpire), res.Expired)
	if res.Charged+res.Released+res.Expired > 0 {
		a.log.Warn("settled credit holds of finished or lost work", "charged", res.Charged,
			"released", res.Released, "expired", res.Expired, "still_at_work", res.Kept, "exclusive", exclusive)
	}
	if err != nil {
		a.Metrics.Problem("reconcile")
		return fmt.Errorf("reconcile credit holds: %w", err)
	}
	return nil
}

// exclusive reports whether this process alone can be doing paid work on its store: with
// SQLite the data directory is locked to it (lockDataDir), so at start every open request
// and creation belongs to a process that died. Replicas on PostgreSQL never are.
func (a *App) exclusive() bool {
	_, ok := a.Store.(*sqlite.Store)
	return ok
}

// Sweep deletes expired outputs, settles the credit holds of finished or lost work, and
// forgets requests finished past their retention, expired idempotency keys and old
// webhook deliveries. It runs periodically on every replica
// and can be called directly; a failure of one part does not stop the others.
func (a *App) Sweep(ctx context.Context) error {
	res, err := a.Service.SweepOutputs(ctx)
	if res.Deleted > 0 {
		a.log.Info("swept expired outputs", "count", res.Deleted)
	}
	for range res.Failed {
		a.Metrics.Problem("sweep_delete")
	}
	rerr := a.reconcile(ctx, false)
	n, perr := a.Store.PruneRequests(ctx, a.cfg.Now().Add(-RequestRetention))
	if n > 0 {
		a.log.Info("forgot finished requests", "count", n)
	}
	_, ierr := a.Store.SweepIdempotencyKeys(ctx, a.cfg.Now())
	_, werr := a.Store.SweepWebhookDeliveries(ctx, a.cfg.Now().Add(-webhooks.DeliveriesKept))
	return errors.Join(err, rerr, perr, ierr, werr)
}
