package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
)

// webhookQueue is the River queue webhook deliveries run on, apart from training so that
// a slow endpoint never holds a training job back (nor the other way round).
const webhookQueue = "webhooks"

// DefaultWebhookRetries are the waits after each failed delivery attempt: the first retry
// within seconds, then backing off; the last attempt comes at the end of the window.
var DefaultWebhookRetries = []time.Duration{5 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// DefaultWebhookWindow is how long an event's delivery is retried.
const DefaultWebhookWindow = 24 * time.Hour

// webhookAttemptTimeout bounds one delivery job; the delivery's own HTTP deadline (10 s)
// is well inside it.
const webhookAttemptTimeout = 30 * time.Second

// WebhookJob is one event to deliver to an account's webhook. Its payload is fixed when the
// event happens, so every attempt sends the same body under the same id.
type WebhookJob struct {
	EventID   string          `json:"event_id" river:"unique"`
	AccountID uuid.UUID       `json:"account_id"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// Kind names webhook jobs in River's table.
func (WebhookJob) Kind() string { return "webhook_delivery" }

// WebhookHandler makes one delivery attempt (1-based); an error schedules the next one,
// until the retry window ends.
type WebhookHandler interface {
	DeliverWebhook(ctx context.Context, job WebhookJob, attempt int) error
}

type webhookWorker struct {
	river.WorkerDefaults[WebhookJob]
	q *Queue
}

func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookJob]) error {
	if w.q.webhooks == nil {
		return errors.New("jobs: no webhook handler")
	}
	return w.q.webhooks.DeliverWebhook(ctx, job.Args, job.Attempt)
}

func (w *webhookWorker) Timeout(*river.Job[WebhookJob]) time.Duration { return webhookAttemptTimeout }

// NextRetry follows the webhook schedule instead of the training backoff.
func (w *webhookWorker) NextRetry(job *river.Job[WebhookJob]) time.Time {
	return w.q.cfg.webhookRetryAt(job.Attempt, job.CreatedAt, time.Now())
}

// webhookRetryAt is when the attempt after the failed one (1-based) runs: after its wait,
// but never past the end of the window, where the last attempt is made.
func (c Config) webhookRetryAt(failed int, created, now time.Time) time.Time {
	waits := c.WebhookRetries
	next := now.Add(waits[min(failed, len(waits))-1])
	if end := created.Add(c.WebhookWindow); next.After(end) {
		next = end
		if end.Before(now) {
			next = now
		}
	}
	return next
}

// webhookAttempts is how many attempts an event gets: the first, one per wait, and the
// last at the end of the window.
func (c Config) webhookAttempts() int { return len(c.WebhookRetries) + 2 }

// HandleWebhooks sets what delivers webhook jobs; call it before Start.
func (q *Queue) HandleWebhooks(h WebhookHandler) { q.webhooks = h }

// EnqueueWebhook queues an event's delivery. An event already queued (the same id) is not
// queued again.
func (q *Queue) EnqueueWebhook(ctx context.Context, j WebhookJob) error {
	_, err := q.client.Insert(ctx, j, &river.InsertOpts{
		Queue:       webhookQueue,
		MaxAttempts: q.cfg.webhookAttempts(),
		UniqueOpts:  river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return fmt.Errorf("jobs: enqueue webhook: %w", err)
	}
	return nil
}
