package storetest

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

func testHeldReservations(e *env) {
	t := e.t
	a := e.account(1000, 0)
	r := e.request(a.ID, "edit", 12, time.Minute)
	m := &core.CustomModel{AccountID: a.ID, Mode: core.ModePersona, Name: "Ann"}
	must(t, e.s.CreateTraining(e.ctx, m, 38))
	legacy, err := e.s.Reserve(e.ctx, a.ID, 5, "score", core.Owner{})
	must(t, err)
	lost, err := e.s.Reserve(e.ctx, a.ID, 7, "title", core.Owner{Kind: core.OwnerRequest, ID: uuid.New()})
	must(t, err)
	done := e.request(a.ID, "edit", 12, time.Minute)
	_, err = e.s.FinishRequest(e.ctx, done.ID, core.RequestEnd{Status: core.RequestSucceeded})
	must(t, err)

	all, err := e.s.HeldReservations(e.ctx, uuid.Nil, 10)
	must(t, err)
	want := []uuid.UUID{r.ReservationID, *m.ReservationID, legacy.ID, lost.ID} // id order: creation order
	if len(all) != len(want) {
		t.Fatalf("%d holds, want %d (finished ones left out)", len(all), len(want))
	}
	for i, h := range all {
		if h.ID != want[i] || h.State != core.ReservationHeld {
			t.Fatalf("hold %d is %v, want %v", i, h.ID, want[i])
		}
	}
	if all[0].Request == nil || all[0].Request.ID != r.ID || all[0].Custom != nil {
		t.Fatalf("request hold %+v", all[0])
	}
	if all[1].Custom == nil || all[1].Custom.ID != m.ID || all[1].Request != nil {
		t.Fatalf("training hold %+v", all[1])
	}
	if all[2].Owner.Kind != "" || all[2].Request != nil || all[2].Custom != nil {
		t.Fatalf("ownerless hold %+v", all[2])
	}
	if all[3].Owner.Kind != core.OwnerRequest || all[3].Request != nil {
		t.Fatalf("hold of a missing request %+v", all[3])
	}
	// Pages follow the id.
	page, err := e.s.HeldReservations(e.ctx, all[1].ID, 1)
	must(t, err)
	if len(page) != 1 || page[0].ID != legacy.ID {
		t.Fatalf("page after the second: %+v", page)
	}
}

func testSettleHold(e *env) {
	t := e.t
	a := e.account(1000, 0)
	decide := func(action core.HoldAction, reason string) func(core.Hold) core.Settlement {
		return func(core.Hold) core.Settlement { return core.Settlement{Action: action, Reason: reason} }
	}

	// Expire: the running request fails and its hold is released, together.
	r := e.request(a.ID, "edit", 12, time.Minute)
	var seen core.RequestStatus
	got, err := e.s.SettleHold(e.ctx, r.ReservationID, func(h core.Hold) core.Settlement {
		if h.Request != nil {
			seen = h.Request.Status
		}
		return core.Settlement{Action: core.HoldExpire}
	})
	must(t, err)
	if got.Action != core.HoldExpire || seen != core.RequestRunning {
		t.Fatalf("settled %v having seen the request %q", got, seen)
	}
	if st, _ := e.s.GetRequest(e.ctx, a.ID, r.ID); st.Status != core.RequestFailed || st.FinishedAt == nil {
		t.Fatalf("expired request is %+v, want failed", st)
	}
	if b := e.balance(a.ID); b != 1000 {
		t.Fatalf("balance %d after expiry, want 1000", b)
	}
	// A hold no longer held is left alone, whatever decide says.
	got, err = e.s.SettleHold(e.ctx, r.ReservationID, decide(core.HoldCharge, ""))
	must(t, err)
	if got.Action != core.HoldKeep {
		t.Fatalf("settled a released hold: %v", got)
	}

	// Expire a record still saving its inputs: failed with the reason, hold released.
	m := &core.CustomModel{AccountID: a.ID, Mode: core.ModeStyle, Name: "Neon"}
	must(t, e.s.CreateTraining(e.ctx, m, 38))
	_, err = e.s.SettleHold(e.ctx, *m.ReservationID, decide(core.HoldExpire, "gone"))
	must(t, err)
	if st, _ := e.s.CustomModelByID(e.ctx, m.ID); st.Status != core.StatusFailed || st.Stage != core.StageFailed || st.FailReason != "gone" {
		t.Fatalf("expired record %+v", st)
	}

	// Charge and release; keep does nothing.
	c := e.request(a.ID, "thumbnail.mdl_2", 20, time.Minute)
	k := e.request(a.ID, "title", 8, time.Minute)
	rel, err := e.s.Reserve(e.ctx, a.ID, 3, "score", core.Owner{})
	must(t, err)
	for _, step := range []struct {
		id     uuid.UUID
		action core.HoldAction
	}{{c.ReservationID, core.HoldCharge}, {k.ReservationID, core.HoldKeep}, {rel.ID, core.HoldRelease}} {
		got, err := e.s.SettleHold(e.ctx, step.id, decide(step.action, ""))
		must(t, err)
		if got.Action != step.action {
			t.Fatalf("settled %v, want %v", got.Action, step.action)
		}
	}
	if b := e.balance(a.ID); b != 1000-20-8 {
		t.Fatalf("balance %d, want %d (20 charged, 8 kept)", b, 1000-20-8)
	}
	if e.held(k.ReservationID) == nil || e.held(c.ReservationID) != nil {
		t.Fatal("keep settled, or charge did not")
	}
	_, err = e.s.SettleHold(e.ctx, uuid.New(), decide(core.HoldRelease, ""))
	wantErr(t, err, core.ErrNotFound)
}

// testSettleHoldRace: several settlers (replicas) and the owners themselves settle the
// same holds at once: each hold settles exactly once and the balance stays the ledger's.
func testSettleHoldRace(e *env) {
	t := e.t
	a := e.account(10000, 0)
	var reqs []*core.Request
	for range 20 {
		reqs = append(reqs, e.request(a.ID, "edit", 10, time.Minute))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	settled := map[uuid.UUID]int{}
	for range 4 {
		wg.Go(func() {
			for _, r := range reqs {
				got, err := e.s.SettleHold(e.ctx, r.ReservationID, func(core.Hold) core.Settlement {
					return core.Settlement{Action: core.HoldExpire}
				})
				if err != nil {
					t.Error(err)
					return
				}
				if got.Action != core.HoldKeep {
					mu.Lock()
					settled[r.ID]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() { // the owners finishing on their own meanwhile
		for _, r := range reqs {
			if _, err := e.s.FinishRequest(e.ctx, r.ID, core.RequestEnd{Status: core.RequestSucceeded}); err == nil {
				mu.Lock()
				settled[r.ID]++
				mu.Unlock()
			}
		}
	})
	wg.Wait()
	charged := int64(0)
	for _, r := range reqs {
		if settled[r.ID] != 1 {
			t.Fatalf("request %v settled %d times", r.ID, settled[r.ID])
		}
		st, err := e.s.GetRequest(e.ctx, a.ID, r.ID)
		must(t, err)
		if st.Status == core.RequestSucceeded {
			charged += 10
		}
	}
	if b := e.balance(a.ID); b != 10000-charged {
		t.Fatalf("balance %d, want %d", b, 10000-charged)
	}
	if holds, _ := e.s.HeldReservations(e.ctx, uuid.Nil, 100); len(holds) != 0 {
		t.Fatalf("%d holds still held", len(holds))
	}
}
