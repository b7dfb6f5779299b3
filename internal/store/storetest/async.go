package storetest

import (
	"bytes"
	"database/sql"
	"slices"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// queued accepts an asynchronous request of op on the account, holding price credits.
func (e *env) queued(account, key uuid.UUID, op string, price int64, params string) *core.Request {
	e.t.Helper()
	r := &core.Request{ID: uuid.Must(uuid.NewV7()), AccountID: account, Operation: op, Status: core.RequestQueued,
		Async: true, KeyID: key, Params: []byte(params), Deadline: e.clock.Now().Add(time.Hour)}
	must(e.t, e.s.BeginRequest(e.ctx, r, price))
	return r
}

// testAsyncRequests: an asynchronous request from acceptance through start, progress and
// its end, with its answer kept; queue positions; the open list.
func testAsyncRequests(e *env) {
	t := e.t
	a, b := e.account(100, 0), e.account(100, 0)
	key := uuid.New()
	first := e.queued(a.ID, key, "thumbnail.mdl_3", 16, `{"kind":"thumbnail"}`)
	e.clock.Advance(time.Millisecond)
	second := e.queued(b.ID, uuid.New(), "title", 8, `{"kind":"title"}`)
	e.clock.Advance(time.Millisecond)
	sync := e.request(a.ID, "edit", 12, time.Minute)
	if e.balance(a.ID) != 72 || e.balance(b.ID) != 92 {
		t.Fatalf("balances %d %d: want the holds taken at acceptance", e.balance(a.ID), e.balance(b.ID))
	}
	got, err := e.s.GetRequest(e.ctx, a.ID, first.ID)
	must(t, err)
	if !got.Async || got.KeyID != key || got.Status != core.RequestQueued || got.Progress != 0 || got.Params != nil ||
		got.Result != nil || got.Error != nil || !got.Open() {
		t.Fatalf("stored %+v: want queued, async, its key, no params read", got)
	}
	for _, c := range []struct {
		r    *core.Request
		want int
	}{{first, 1}, {second, 2}} {
		n, err := e.s.QueuePosition(e.ctx, c.r)
		must(t, err)
		if n != c.want {
			t.Fatalf("queue position %d, want %d", n, c.want)
		}
	}
	open, err := e.s.OpenAsyncRequests(e.ctx)
	must(t, err)
	if !slices.Equal(open, []uuid.UUID{first.ID, second.ID}) {
		t.Fatalf("open async %v, want both queued (not the synchronous one)", open)
	}

	deadline := e.clock.Now().Add(2 * time.Minute)
	started, err := e.s.StartRequest(e.ctx, first.ID, deadline)
	must(t, err)
	if started.Status != core.RequestRunning || string(started.Params) != `{"kind":"thumbnail"}` {
		t.Fatalf("started %+v", started)
	}
	wantTime(t, "started Deadline", started.Deadline, deadline)
	if n, _ := e.s.QueuePosition(e.ctx, second); n != 1 {
		t.Fatalf("queue position %d after the first started, want 1", n)
	}
	// A retried job starts a running request again.
	_, err = e.s.StartRequest(e.ctx, first.ID, deadline)
	must(t, err)

	for _, p := range []int{40, 10, 250} {
		ok, err := e.s.TouchRequest(e.ctx, first.ID, p)
		must(t, err)
		if !ok {
			t.Fatal("touch: an open request reported finished")
		}
	}
	if got, _ := e.s.RequestByID(e.ctx, first.ID); got.Progress != 100 {
		t.Fatalf("progress %d: want the highest, capped at 100", got.Progress)
	}
	ok, err := e.s.TouchRequest(e.ctx, first.ID, -1)
	must(t, err)
	if !ok {
		t.Fatal("touch -1: an open request reported finished")
	}

	result, errBody := []byte(`{"output":"https://x/y?a=1&b=2","request_id":"r"}`), []byte(`{"code":"GENERATION_FAILED"}`)
	done, err := e.s.FinishRequest(e.ctx, first.ID, core.RequestEnd{Status: core.RequestSucceeded, Result: result})
	must(t, err)
	if done.Progress != 100 || !bytes.Equal(done.Result, result) {
		t.Fatalf("finished %+v", done)
	}
	got, err = e.s.GetRequest(e.ctx, a.ID, first.ID)
	must(t, err)
	if got.Status != core.RequestSucceeded || !bytes.Equal(got.Result, result) || got.Error != nil || got.Open() {
		t.Fatalf("kept %+v: want the result as written", got)
	}
	if e.balance(a.ID) != 72 || e.held(first.ReservationID) != nil {
		t.Fatal("success did not charge the hold")
	}
	ok, err = e.s.TouchRequest(e.ctx, first.ID, 50)
	must(t, err)
	if ok {
		t.Fatal("touch: a finished request reported open")
	}
	_, err = e.s.StartRequest(e.ctx, first.ID, deadline)
	wantErr(t, err, core.ErrConflict)
	if db, ok := e.s.(interface{ DB() *sql.DB }); ok {
		var params []byte
		must(t, db.DB().QueryRowContext(e.ctx, `SELECT params FROM requests WHERE id = $1`, first.ID).Scan(&params))
		if params != nil {
			t.Fatal("a finished request kept its input")
		}
	}

	// The synchronous request keeps its error body.
	_, err = e.s.FinishRequest(e.ctx, sync.ID, core.RequestEnd{Status: core.RequestFailed, Error: errBody})
	must(t, err)
	got, _ = e.s.GetRequest(e.ctx, a.ID, sync.ID)
	if got.Status != core.RequestFailed || !bytes.Equal(got.Error, errBody) || got.Result != nil || got.Async {
		t.Fatalf("failed sync %+v", got)
	}
	open, _ = e.s.OpenAsyncRequests(e.ctx)
	if !slices.Equal(open, []uuid.UUID{second.ID}) {
		t.Fatalf("open async %v, want the second only", open)
	}
}

// testCancelRequest: cancelling releases the hold in the same transaction, once; finished,
// synchronous, unknown and other accounts' requests are refused.
func testCancelRequest(e *env) {
	t := e.t
	a, b := e.account(100, 0), e.account(100, 0)
	cancelled := []byte(`{"code":"CANCELLED","message":"cancelled"}`)
	q := e.queued(a.ID, uuid.New(), "thumbnail.mdl_4_5", 13, `{}`)
	_, err := e.s.CancelRequest(e.ctx, b.ID, q.ID, cancelled)
	wantErr(t, err, core.ErrNotFound)
	_, err = e.s.CancelRequest(e.ctx, a.ID, uuid.New(), cancelled)
	wantErr(t, err, core.ErrNotFound)
	e.clock.Advance(time.Second)
	r, err := e.s.CancelRequest(e.ctx, a.ID, q.ID, cancelled)
	must(t, err)
	if r.Status != core.RequestCancelled || r.FinishedAt == nil || !r.FinishedAt.Equal(e.clock.Now()) || !bytes.Equal(r.Error, cancelled) {
		t.Fatalf("cancelled %+v", r)
	}
	if e.balance(a.ID) != 100 || e.held(q.ReservationID) != nil {
		t.Fatalf("balance %d: the hold was not released", e.balance(a.ID))
	}
	r, err = e.s.CancelRequest(e.ctx, a.ID, q.ID, cancelled)
	wantErr(t, err, core.ErrConflict)
	if r == nil || r.Status != core.RequestCancelled {
		t.Fatalf("second cancel returned %+v: want the current state", r)
	}
	_, err = e.s.FinishRequest(e.ctx, q.ID, core.RequestEnd{Status: core.RequestSucceeded})
	wantErr(t, err, core.ErrConflict) // the work ending later charges nothing
	if e.balance(a.ID) != 100 {
		t.Fatal("a cancelled request was charged")
	}

	// A running one is cancelled the same way; a synchronous one is not.
	run := e.queued(a.ID, uuid.New(), "edit", 12, `{}`)
	_, err = e.s.StartRequest(e.ctx, run.ID, e.clock.Now().Add(time.Minute))
	must(t, err)
	_, err = e.s.CancelRequest(e.ctx, a.ID, run.ID, cancelled)
	must(t, err)
	sync := e.request(a.ID, "edit", 12, time.Minute)
	r, err = e.s.CancelRequest(e.ctx, a.ID, sync.ID, cancelled)
	wantErr(t, err, core.ErrConflict)
	if r == nil || r.Status != core.RequestRunning {
		t.Fatalf("sync cancel returned %+v", r)
	}
	if e.balance(a.ID) != 88 {
		t.Fatalf("balance %d, want 88 (only the synchronous hold left)", e.balance(a.ID))
	}
}

// testExpireAsync: the reconciler's expiry of a request stores the public error it is given.
func testExpireAsync(e *env) {
	t := e.t
	a := e.account(100, 0)
	q := e.queued(a.ID, uuid.New(), "edit", 12, `{}`)
	lost := []byte(`{"code":"INTERNAL_ERROR","message":"lost"}`)
	got, err := e.s.SettleHold(e.ctx, q.ReservationID, func(core.Hold) core.Settlement {
		return core.Settlement{Action: core.HoldExpire, Error: lost}
	})
	must(t, err)
	if got.Action != core.HoldExpire {
		t.Fatalf("settled %v", got.Action)
	}
	r, _ := e.s.GetRequest(e.ctx, a.ID, q.ID)
	if r.Status != core.RequestFailed || !bytes.Equal(r.Error, lost) || e.balance(a.ID) != 100 {
		t.Fatalf("expired %+v, balance %d", r, e.balance(a.ID))
	}
}
