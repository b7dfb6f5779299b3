package storetest

import (
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// request begins a running request of op on the account, holding price credits.
func (e *env) request(account uuid.UUID, op string, price int64, deadline time.Duration) *core.Request {
	e.t.Helper()
	r := &core.Request{ID: uuid.Must(uuid.NewV7()), AccountID: account, Operation: op, Status: core.RequestRunning,
		Deadline: e.clock.Now().Add(deadline)}
	must(e.t, e.s.BeginRequest(e.ctx, r, price))
	return r
}

// reservation finds a reservation by id among the account's held ones, or returns nil.
func (e *env) held(id uuid.UUID) *core.Hold {
	e.t.Helper()
	holds, err := e.s.HeldReservations(e.ctx, uuid.Nil, 1000)
	must(e.t, err)
	for i := range holds {
		if holds[i].ID == id {
			return &holds[i]
		}
	}
	return nil
}

func testRequests(e *env) {
	t := e.t
	a, b := e.account(100, 0), e.account(0, 0)
	r := e.request(a.ID, "thumbnail.mdl_4_5", 13, time.Minute)
	wantTime(t, "request CreatedAt", r.CreatedAt, e.clock.Now())
	if r.ReservationID == uuid.Nil || e.balance(a.ID) != 87 {
		t.Fatalf("request %+v, balance %d: want a hold of 13", r, e.balance(a.ID))
	}
	h := e.held(r.ReservationID)
	if h == nil || h.Owner != (core.Owner{Kind: core.OwnerRequest, ID: r.ID}) || h.Request == nil || h.Request.ID != r.ID ||
		h.Operation != "thumbnail.mdl_4_5" || h.Amount != 13 {
		t.Fatalf("hold %+v: want owned by the request", h)
	}
	got, err := e.s.GetRequest(e.ctx, a.ID, r.ID)
	must(t, err)
	wantTime(t, "Deadline", got.Deadline, r.Deadline)
	if got.Status != core.RequestRunning || got.FinishedAt != nil || got.ReservationID != r.ReservationID || got.Operation != r.Operation {
		t.Fatalf("stored request %+v", got)
	}
	_, err = e.s.GetRequest(e.ctx, b.ID, r.ID) // another account's
	wantErr(t, err, core.ErrNotFound)

	e.clock.Advance(time.Second)
	done, err := e.s.FinishRequest(e.ctx, r.ID, core.RequestEnd{Status: core.RequestSucceeded})
	must(t, err)
	if done.Status != core.RequestSucceeded || done.FinishedAt == nil || !done.FinishedAt.Equal(e.clock.Now()) {
		t.Fatalf("finished %+v", done)
	}
	if e.held(r.ReservationID) != nil || e.balance(a.ID) != 87 {
		t.Fatal("success left the hold held or moved the balance")
	}
	wantErr(t, e.s.Charge(e.ctx, r.ReservationID), core.ErrConflict) // charged by FinishRequest
	_, err = e.s.FinishRequest(e.ctx, r.ID, core.RequestEnd{Status: core.RequestFailed})
	wantErr(t, err, core.ErrConflict) // finished once

	e.clock.Advance(time.Second)
	f := e.request(a.ID, "edit", 12, time.Minute)
	_, err = e.s.FinishRequest(e.ctx, f.ID, core.RequestEnd{Status: core.RequestFailed})
	must(t, err)
	if e.balance(a.ID) != 87 || e.held(f.ReservationID) != nil {
		t.Fatal("failure did not release the hold")
	}
	_, err = e.s.FinishRequest(e.ctx, uuid.New(), core.RequestEnd{Status: core.RequestFailed})
	wantErr(t, err, core.ErrNotFound)

	// Finished requests are forgotten after their retention; open ones never.
	open := e.request(a.ID, "edit", 12, time.Minute)
	n, err := e.s.PruneRequests(e.ctx, e.clock.Now()) // strictly before: f finished now
	must(t, err)
	if n != 1 {
		t.Fatalf("pruned %d, want 1 (the request finished a second ago)", n)
	}
	if _, err := e.s.GetRequest(e.ctx, a.ID, f.ID); err != nil {
		t.Fatalf("request finished at the cutoff pruned: %v", err)
	}
	n, err = e.s.PruneRequests(e.ctx, e.clock.Now().Add(time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("pruned %d, want 1", n)
	}
	if _, err := e.s.GetRequest(e.ctx, a.ID, open.ID); err != nil {
		t.Fatalf("open request pruned: %v", err)
	}
}

func testRequestErrors(e *env) {
	t := e.t
	a := e.account(10, 0)
	r := &core.Request{ID: uuid.Must(uuid.NewV7()), AccountID: a.ID, Operation: "edit", Status: core.RequestRunning, Deadline: e.clock.Now()}
	wantErr(t, e.s.BeginRequest(e.ctx, r, 12), core.ErrInsufficient)
	_, err := e.s.GetRequest(e.ctx, a.ID, r.ID)
	wantErr(t, err, core.ErrNotFound) // no request without its hold
	must(t, e.s.BeginRequest(e.ctx, r, 4))
	dup := *r
	wantErr(t, e.s.BeginRequest(e.ctx, &dup, 4), core.ErrConflict) // one request per id
	if b := e.balance(a.ID); b != 6 {
		t.Fatalf("balance %d: the refused duplicate held credits", b)
	}
	wantErr(t, e.s.BeginRequest(e.ctx, &core.Request{ID: uuid.New(), AccountID: uuid.New(), Operation: "edit",
		Status: core.RequestRunning}, 1), core.ErrNotFound)
}

func testCreateTraining(e *env) {
	t := e.t
	a := e.account(100, 0)
	m := &core.CustomModel{AccountID: a.ID, Mode: core.ModeStyle, Name: "Neon", Source: `{"pending":true}`}
	must(t, e.s.CreateTraining(e.ctx, m, 38))
	if m.ReservationID == nil || m.Status != core.StatusProcessing || e.balance(a.ID) != 62 {
		t.Fatalf("record %+v, balance %d", m, e.balance(a.ID))
	}
	h := e.held(*m.ReservationID)
	if h == nil || h.Owner != (core.Owner{Kind: core.OwnerCustomModel, ID: m.ID}) || h.Custom == nil || h.Custom.Source != m.Source {
		t.Fatalf("hold %+v: want owned by the record", h)
	}
	// A taken name or a short balance stores neither the record nor the hold.
	wantErr(t, e.s.CreateTraining(e.ctx, &core.CustomModel{AccountID: a.ID, Mode: core.ModeStyle, Name: "NEON"}, 38), core.ErrConflict)
	wantErr(t, e.s.CreateTraining(e.ctx, &core.CustomModel{AccountID: a.ID, Mode: core.ModeStyle, Name: "Other"}, 63), core.ErrInsufficient)
	if list, _ := e.s.ListCustomModels(e.ctx, a.ID); len(list) != 1 || e.balance(a.ID) != 62 {
		t.Fatalf("%d records, balance %d after refused creations", len(list), e.balance(a.ID))
	}

	// Completion charges in the same transaction, once.
	complete := func(x *core.CustomModel) error {
		if x.Status != core.StatusProcessing {
			return core.ErrTrainingFinished
		}
		x.Status = core.StatusCompleted
		return nil
	}
	got, charged, err := e.s.FinishTraining(e.ctx, m.ID, complete)
	must(t, err)
	if !charged || got.Status != core.StatusCompleted || e.held(*m.ReservationID) != nil {
		t.Fatalf("completion: charged %v, record %+v", charged, got)
	}
	_, charged, err = e.s.FinishTraining(e.ctx, m.ID, complete)
	wantErr(t, err, core.ErrTrainingFinished)
	wantErr(t, e.s.Charge(e.ctx, *m.ReservationID), core.ErrConflict)

	// Failure releases in the same transaction, through UpdateCustomModel too.
	f := &core.CustomModel{AccountID: a.ID, Mode: core.ModePersona, Name: "Ann"}
	must(t, e.s.CreateTraining(e.ctx, f, 38))
	_, err = e.s.UpdateCustomModel(e.ctx, f.ID, func(x *core.CustomModel) error { x.Status = core.StatusFailed; return nil })
	must(t, err)
	if e.balance(a.ID) != 62 || e.held(*f.ReservationID) != nil {
		t.Fatalf("failure: balance %d, want the hold released", e.balance(a.ID))
	}
	_, charged, err = e.s.FinishTraining(e.ctx, f.ID, func(x *core.CustomModel) error { x.Status = core.StatusCompleted; return nil })
	must(t, err)
	if charged || e.balance(a.ID) != 62 {
		t.Fatal("a record completed after failing charged a released hold")
	}
}
