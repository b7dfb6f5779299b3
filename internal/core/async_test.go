package core_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// requestQueue records the asynchronous requests queued.
type requestQueue struct{ ids []uuid.UUID }

func (q *requestQueue) EnqueueRequest(_ context.Context, id uuid.UUID) error {
	q.ids = append(q.ids, id)
	return nil
}

// events records what the service announces.
type events struct {
	mu  sync.Mutex
	got []core.Event
}

func (ev *events) Notify(_ context.Context, e core.Event) error {
	ev.mu.Lock()
	ev.got = append(ev.got, e)
	ev.mu.Unlock()
	return nil
}

func (ev *events) ids() []string {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var out []string
	for _, e := range ev.got {
		out = append(out, string(e.Type)+" "+e.ID)
	}
	return out
}

// asyncEnv is env with a request queue, an event recorder, and a titler that runs gate.
type asyncEnv struct {
	*env
	q      *requestQueue
	events *events
	gate   func(ctx context.Context) error
	busy   bool
}

func newAsyncEnv(t *testing.T) *asyncEnv {
	a := &asyncEnv{q: &requestQueue{}, events: &events{}, gate: func(context.Context) error { return nil }}
	a.env = newEnv(t, func(c *core.ServiceConfig) {
		c.Requests, c.Events, c.ProgressInterval = a.q, a.events, 10*time.Millisecond
		c.Titler = titlerFunc(func(ctx context.Context, _ core.TitleRequest) (core.TitleResult, error) {
			core.ReportProgress(ctx, 30)
			if err := a.gate(ctx); err != nil {
				return core.TitleResult{}, err
			}
			return core.TitleResult{Titles: []string{"A title"}}, nil
		})
		c.Slots = func(context.Context, core.Principal) (func(), bool, error) { return func() {}, !a.busy, nil }
	})
	a.p.Key = &core.APIKey{ID: uuid.New(), AccountID: a.p.Account.ID}
	return a
}

// submit accepts an asynchronous title request and returns its id.
func (a *asyncEnv) submit() uuid.UUID {
	a.t.Helper()
	id := uuid.Must(uuid.NewV7())
	r, err := a.svc.Submit(core.WithRequestID(a.ctx, id.String()), a.p, core.Work{Kind: core.WorkTitle, Title: &core.TitleParams{Prompt: "bikes", Count: 3}})
	if err != nil {
		a.t.Fatal(err)
	}
	if r.ID != id || r.Status != core.RequestQueued || len(a.q.ids) == 0 || a.q.ids[len(a.q.ids)-1] != id {
		a.t.Fatalf("submitted %+v, queued %v", r, a.q.ids)
	}
	return id
}

// TestAsyncRunStates walks an asynchronous request's job: busy slots leave it queued; a
// job stopped by the queue leaves it running for the next attempt; the next attempt
// succeeds and is charged once; a rerun of an ended request announces it again under the
// same event id; a failure keeps the public error and announces request.failed.
func TestAsyncRunStates(t *testing.T) {
	a := newAsyncEnv(t)
	id := a.submit()
	if got := a.request(id); !got.Async || got.KeyID != a.p.Key.ID || got.Params != nil {
		t.Fatalf("accepted %+v", got)
	}

	a.busy = true
	if err := a.svc.RunRequest(a.ctx, id); !errors.Is(err, core.ErrBusy) {
		t.Fatalf("no free slot: %v, want ErrBusy", err)
	}
	if got := a.request(id); got.Status != core.RequestQueued {
		t.Fatalf("after a busy try: %s", got.Status)
	}
	a.busy = false

	// The queue stops the job mid-work (shutdown): the request stays open, nothing settles.
	job, stop := context.WithCancel(a.ctx)
	a.gate = func(ctx context.Context) error {
		stop()
		<-ctx.Done()
		return ctx.Err()
	}
	if err := a.svc.RunRequest(job, id); err == nil {
		t.Fatal("a job stopped by the queue reported success: it would not run again")
	}
	if got := a.request(id); got.Status != core.RequestRunning || got.FinishedAt != nil {
		t.Fatalf("after the interrupted attempt: %+v", got)
	}

	a.gate = func(context.Context) error { return nil }
	if err := a.svc.RunRequest(a.ctx, id); err != nil {
		t.Fatal(err)
	}
	got := a.request(id)
	if got.Status != core.RequestSucceeded || got.Progress != 100 || string(got.Result) != `{"outputs":["A title"],"prompt_compacted":false,"reasoning":"","request_id":"`+id.String()+`"}` {
		t.Fatalf("succeeded %+v, result %s", got, got.Result)
	}
	if err := a.svc.RunRequest(a.ctx, id); err != nil { // a duplicate or rescued job
		t.Fatal(err)
	}
	want := "request.succeeded msg_" + id.String() + "_succeeded"
	if ev := a.events.ids(); len(ev) != 2 || ev[0] != want || ev[1] != want {
		t.Fatalf("events %v, want %s twice (one delivery: same id)", ev, want)
	}

	fid := a.submit()
	a.gate = func(context.Context) error { return core.E(core.CodeGenerationRejected, "No titles.") }
	if err := a.svc.RunRequest(a.ctx, fid); err != nil {
		t.Fatal(err)
	}
	f := a.request(fid)
	if e := core.DecodeError(f.Error); f.Status != core.RequestFailed || e == nil || e.Code != core.CodeGenerationRejected || f.Result != nil {
		t.Fatalf("failed %+v, error %s", f, f.Error)
	}
	if ev := a.events.ids(); len(ev) != 3 || ev[2] != "request.failed msg_"+fid.String()+"_failed" {
		t.Fatalf("events %v", ev)
	}
	if b := a.balance(); b != 92 {
		t.Fatalf("balance %d, want 92: one title charged", b)
	}
}

// TestAsyncCancelWhileRunning: a cancel ends the request and releases its hold at once;
// the running work sees its context cancelled and its end charges nothing; no event.
func TestAsyncCancelWhileRunning(t *testing.T) {
	a := newAsyncEnv(t)
	id := a.submit()
	started := make(chan struct{})
	a.gate = func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), core.ErrCancelRequested) {
			t.Errorf("work cancelled by %v, want ErrCancelRequested", context.Cause(ctx))
		}
		return ctx.Err()
	}
	done := make(chan error, 1)
	go func() { done <- a.svc.RunRequest(a.ctx, id) }()
	<-started
	if !a.svc.Running(id) {
		t.Fatal("the request is not listed as running here")
	}
	r, err := a.svc.CancelRequest(a.ctx, a.p, id)
	if err != nil || r.Status != core.RequestCancelled || core.DecodeError(r.Error).Code != core.CodeCancelled {
		t.Fatalf("cancel: %+v %v", r, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the cancelled job: %v", err)
	}
	if a.svc.Running(id) || a.request(id).Status != core.RequestCancelled || len(a.events.ids()) != 0 {
		t.Fatalf("after the work stopped: %+v, events %v", a.request(id), a.events.ids())
	}
	if _, err := a.svc.CancelRequest(a.ctx, a.p, id); core.CodeOf(err) != core.CodeConflict {
		t.Fatalf("second cancel: %v", err)
	}
	if _, err := a.svc.CancelRequest(a.ctx, a.p, uuid.New()); core.CodeOf(err) != core.CodeNotFound {
		t.Fatalf("unknown: %v", err)
	}
	if b := a.balance(); b != 100 {
		t.Fatalf("balance %d, want 100", b)
	}
}

// TestAsyncInputReserved: a large kept input reserves twice its size from the memory
// budget while its work runs; no memory free in time leaves the request for its job's
// next try.
func TestAsyncInputReserved(t *testing.T) {
	var reserved, held int64
	full := true
	a := &asyncEnv{q: &requestQueue{}, events: &events{}}
	a.env = newEnv(t, func(c *core.ServiceConfig) {
		c.Requests = a.q
		c.Reserve = func(ctx context.Context, n int64) (func(), error) {
			if full {
				return nil, core.E(core.CodeTooManyRequests, "busy")
			}
			reserved, held = n, held+n
			return func() { held -= n }, nil
		}
	})
	a.p.Key = &core.APIKey{ID: uuid.New(), AccountID: a.p.Account.ID}
	id := uuid.Must(uuid.NewV7())
	big := strings.Repeat("bikes ", 20000)
	if _, err := a.svc.Submit(core.WithRequestID(a.ctx, id.String()), a.p, core.Work{Kind: core.WorkTitle, Title: &core.TitleParams{Prompt: big, Count: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.RunRequest(a.ctx, id); !errors.Is(err, core.ErrBusy) {
		t.Fatalf("no memory free: %v, want ErrBusy", err)
	}
	if got := a.request(id); got.FinishedAt != nil {
		t.Fatalf("the request ended without memory: %+v", got)
	}
	full = false
	if err := a.svc.RunRequest(a.ctx, id); err != nil {
		t.Fatal(err)
	}
	if got := a.request(id); got.Status != core.RequestSucceeded || reserved < 2*int64(len(big)) || held != 0 {
		t.Fatalf("status %s, reserved %d for a %d-byte prompt, %d still held", got.Status, reserved, len(big), held)
	}
}

// TestAsyncLostRequestSettled: an asynchronous request no job ran before its deadline (plus
// the grace) is failed by the reconciler with the public error of a lost request, its hold
// released, request.failed announced; before that, even a process alone on its store keeps
// it (its job runs again after a restart).
func TestAsyncLostRequestSettled(t *testing.T) {
	var off time.Duration
	a := &asyncEnv{q: &requestQueue{}, events: &events{}}
	a.env = newEnv(t, func(c *core.ServiceConfig) {
		c.Requests, c.Events = a.q, a.events
		c.Now = func() time.Time { return time.Now().Add(off) }
	})
	a.p.Key = &core.APIKey{ID: uuid.New(), AccountID: a.p.Account.ID}
	id := a.submit()
	if res, err := a.svc.Reconcile(a.ctx, true); err != nil || res.Kept != 1 {
		t.Fatalf("at start: %+v %v, want the queued request kept", res, err)
	}
	off = core.DefaultAsyncWait + 3*time.Minute + core.DefaultSettleGrace // past its wait, budget and grace
	if res, err := a.svc.Reconcile(a.ctx, false); err != nil || res.Expired != 1 {
		t.Fatalf("past its deadline: %+v %v, want it expired", res, err)
	}
	r := a.request(id)
	if e := core.DecodeError(r.Error); r.Status != core.RequestFailed || e == nil || e.Code != core.CodeInternal || !strings.Contains(e.Message, "nothing was charged") {
		t.Fatalf("expired %+v, error %s", r, r.Error)
	}
	if ev := a.events.ids(); len(ev) != 1 || ev[0] != "request.failed msg_"+id.String()+"_failed" {
		t.Fatalf("events %v", ev)
	}
	if b := a.balance(); b != 100 {
		t.Fatalf("balance %d, want 100", b)
	}
}
