package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"thumbforge/internal/core"
)

// requestQueue is the River queue asynchronous requests run on, apart from training and
// webhooks so that neither holds the other back.
const requestQueue = "requests"

// busyWait is how long a request whose key has no free in-flight slot waits before its job
// tries again.
const busyWait = time.Second

// RequestHandler runs an asynchronous request's job (core.Service.RunRequest): core.ErrBusy
// asks for another try soon, any other error for a retry with backoff.
type RequestHandler interface {
	RunRequest(ctx context.Context, id uuid.UUID) error
}

// requestArgs is the payload of a request's job: only its id, the request's row (and its
// kept input) being the job's state.
type requestArgs struct {
	RequestID uuid.UUID `json:"request_id"`
}

// Kind names request jobs in River's table.
func (requestArgs) Kind() string { return "async_request" }

type requestWorker struct {
	river.WorkerDefaults[requestArgs]
	q *Queue
}

func (w *requestWorker) Work(ctx context.Context, job *river.Job[requestArgs]) error {
	if w.q.requests == nil {
		return errors.New("jobs: no request handler")
	}
	err := w.q.requests.RunRequest(ctx, job.Args.RequestID)
	if errors.Is(err, core.ErrBusy) {
		return river.JobSnooze(busyWait) // not an attempt: the request has not started
	}
	return err
}

func (w *requestWorker) Timeout(*river.Job[requestArgs]) time.Duration { return w.q.cfg.RequestTimeout }

// HandleRequests sets what runs asynchronous requests' jobs; call it before Start.
func (q *Queue) HandleRequests(h RequestHandler) { q.requests = h }

// EnqueueRequest queues the job of the asynchronous request id (core.RequestQueue). A
// request whose job is already waiting, running or done is not queued again.
func (q *Queue) EnqueueRequest(ctx context.Context, id uuid.UUID) error {
	_, err := q.client.Insert(ctx, requestArgs{RequestID: id}, &river.InsertOpts{
		Queue:      requestQueue,
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return fmt.Errorf("jobs: enqueue request: %w", err)
	}
	return nil
}
