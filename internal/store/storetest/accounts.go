package storetest

import (
	"bytes"
	"errors"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

func testAccounts(e *env) {
	t := e.t
	a := &core.Account{Name: "acme", APIAccess: true, TopUpAmount: 50}
	must(t, e.s.CreateAccount(e.ctx, a))
	if a.ID == uuid.Nil || a.ID.Version() != 7 {
		t.Fatalf("id %v: want a UUID v7", a.ID)
	}
	if a.Concurrency != core.DefaultConcurrency {
		t.Fatalf("concurrency %d, want default %d", a.Concurrency, core.DefaultConcurrency)
	}
	wantTime(t, "CreatedAt", a.CreatedAt, e.clock.Now())
	got, err := e.s.GetAccount(e.ctx, a.ID)
	must(t, err)
	if *got != *a {
		t.Fatalf("GetAccount = %+v, want %+v", got, a)
	}

	// A caller-chosen id is kept; reusing it conflicts.
	id := uuid.New()
	e.clock.Advance(time.Second)
	b := &core.Account{ID: id, Name: "b", Suspended: true, Concurrency: 3, Balance: 40}
	must(t, e.s.CreateAccount(e.ctx, b))
	if b.ID != id {
		t.Fatalf("id %v replaced the caller's %v", b.ID, id)
	}
	wantErr(t, e.s.CreateAccount(e.ctx, &core.Account{ID: id, Name: "again"}), core.ErrConflict)
	// An opening balance is a ledger grant, so the ledger still sums to the balance.
	if bal := e.balance(id); bal != 40 {
		t.Fatalf("opening balance %d, want 40", bal)
	}

	for _, bad := range []struct {
		a    core.Account
		code core.Code
	}{
		{core.Account{Name: "x", Balance: -1}, core.CodeInvalidAmount},
		{core.Account{Name: "x", TopUpAmount: -1}, core.CodeInvalidAmount},
		{core.Account{Name: "x", Concurrency: -2}, core.CodeValidation},
	} {
		wantCode(t, e.s.CreateAccount(e.ctx, &bad.a), bad.code)
	}

	_, err = e.s.GetAccount(e.ctx, uuid.New())
	wantErr(t, err, core.ErrNotFound)

	list, err := e.s.ListAccounts(e.ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("ListAccounts = %+v, want [a b] oldest first", list)
	}
}

func testUpdateAccount(e *env) {
	t := e.t
	a := e.account(25, 0)
	created := a.CreatedAt
	e.clock.Advance(time.Hour)
	got, err := e.s.UpdateAccount(e.ctx, a.ID, func(x *core.Account) error {
		x.Name, x.Suspended, x.APIAccess, x.Concurrency, x.TopUpAmount = "renamed", true, false, 7, 30
		x.Balance = 1_000_000 // must be ignored: credits move only through Credits
		x.CreatedAt = time.Time{}
		x.ID = uuid.New()
		return nil
	})
	must(t, err)
	want := core.Account{ID: a.ID, Name: "renamed", Suspended: true, APIAccess: false, Concurrency: 7,
		Balance: 25, TopUpAmount: 30, CreatedAt: created}
	if *got != want {
		t.Fatalf("UpdateAccount returned %+v, want %+v", got, want)
	}
	stored, err := e.s.GetAccount(e.ctx, a.ID)
	must(t, err)
	if *stored != want {
		t.Fatalf("stored %+v, want %+v", stored, want)
	}
	if e.balance(a.ID) != 25 {
		t.Fatal("balance moved")
	}

	// fn's error aborts the update and is returned as is.
	boom := errors.New("boom")
	_, err = e.s.UpdateAccount(e.ctx, a.ID, func(x *core.Account) error { x.Name = "lost"; return boom })
	wantErr(t, err, boom)
	stored, err = e.s.GetAccount(e.ctx, a.ID)
	must(t, err)
	if stored.Name != "renamed" {
		t.Fatalf("name %q saved despite fn's error", stored.Name)
	}

	_, err = e.s.UpdateAccount(e.ctx, a.ID, func(x *core.Account) error { x.TopUpAmount = -5; return nil })
	wantCode(t, err, core.CodeInvalidAmount)
	_, err = e.s.UpdateAccount(e.ctx, uuid.New(), func(*core.Account) error { return nil })
	wantErr(t, err, core.ErrNotFound)
}

func testKeys(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	k := &core.APIKey{AccountID: a.ID, Prefix: "mdl_abcdef", Hash: core.HashKey("secret-a")}
	must(t, e.s.CreateKey(e.ctx, k))
	if k.ID.Version() != 7 || k.Status != core.KeyActive {
		t.Fatalf("new key %+v: want a v7 id and status active", k)
	}
	wantTime(t, "CreatedAt", k.CreatedAt, e.clock.Now())
	e.clock.Advance(time.Second)
	k2 := &core.APIKey{AccountID: a.ID, Prefix: "mdl_2", Hash: core.HashKey("secret-a2"), Status: core.KeyInactive}
	must(t, e.s.CreateKey(e.ctx, k2))
	must(t, e.s.CreateKey(e.ctx, &core.APIKey{AccountID: b.ID, Prefix: "mdl_b", Hash: core.HashKey("secret-b")}))

	gk, ga, err := e.s.KeyByHash(e.ctx, core.HashKey("secret-a"))
	must(t, err)
	if gk.ID != k.ID || gk.AccountID != a.ID || gk.Prefix != k.Prefix || !bytes.Equal(gk.Hash, k.Hash) ||
		gk.Status != core.KeyActive || !gk.CreatedAt.Equal(k.CreatedAt) {
		t.Fatalf("KeyByHash key = %+v, want %+v", gk, k)
	}
	if *ga != *a {
		t.Fatalf("KeyByHash account = %+v, want %+v", ga, a)
	}
	_, _, err = e.s.KeyByHash(e.ctx, core.HashKey("unknown"))
	wantErr(t, err, core.ErrNotFound)

	wantErr(t, e.s.CreateKey(e.ctx, &core.APIKey{AccountID: b.ID, Hash: core.HashKey("secret-a")}), core.ErrConflict)
	wantErr(t, e.s.CreateKey(e.ctx, &core.APIKey{AccountID: uuid.New(), Hash: core.HashKey("orphan")}), core.ErrNotFound)
	wantCode(t, e.s.CreateKey(e.ctx, &core.APIKey{AccountID: a.ID, Hash: core.HashKey("x"), Status: "bogus"}), core.CodeValidation)

	got, err := e.s.GetKey(e.ctx, k2.ID)
	must(t, err)
	if got.Status != core.KeyInactive || got.AccountID != a.ID {
		t.Fatalf("GetKey = %+v", got)
	}
	_, err = e.s.GetKey(e.ctx, uuid.New())
	wantErr(t, err, core.ErrNotFound)

	list, err := e.s.ListKeys(e.ctx, a.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != k.ID || list[1].ID != k2.ID {
		t.Fatalf("ListKeys = %+v, want a's two keys oldest first", list)
	}

	must(t, e.s.SetKeyStatus(e.ctx, k.ID, core.KeyDeleted))
	if got, _ := e.s.GetKey(e.ctx, k.ID); got.Status != core.KeyDeleted {
		t.Fatalf("status %q after SetKeyStatus(deleted)", got.Status)
	}
	wantErr(t, e.s.SetKeyStatus(e.ctx, uuid.New(), core.KeyActive), core.ErrNotFound)
	wantCode(t, e.s.SetKeyStatus(e.ctx, k.ID, "bogus"), core.CodeValidation)
}

func testSettings(e *env) {
	t := e.t
	for i, want := range []bool{false, true, true, false} {
		if i > 0 {
			must(t, e.s.SetMaintenance(e.ctx, want))
		}
		got, err := e.s.Maintenance(e.ctx)
		must(t, err)
		if got != want {
			t.Fatalf("step %d: Maintenance = %v, want %v", i, got, want)
		}
	}
}

func testOutputs(e *env) {
	t := e.t
	a := e.account(0, 0)
	now := e.clock.Now()
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/c", AccountID: a.ID, ExpiresAt: now.Add(-time.Minute)}))
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/a", AccountID: a.ID, ExpiresAt: now.Add(-time.Hour)}))
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/b", AccountID: a.ID, ExpiresAt: now.Add(-30 * time.Minute)}))
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/live", AccountID: a.ID, ExpiresAt: now.Add(time.Hour)}))
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/edge", AccountID: a.ID, ExpiresAt: now})) // expires at now: not before now

	check := func(now time.Time, limit int, want ...string) {
		t.Helper()
		got, err := e.s.ExpiredOutputs(e.ctx, now, limit)
		must(t, err)
		if len(got) != len(want) {
			t.Fatalf("ExpiredOutputs = %q, want %q", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ExpiredOutputs = %q, want %q (oldest expiry first)", got, want)
			}
		}
	}
	check(now, 10, "out/a", "out/b", "out/c")
	check(now, 2, "out/a", "out/b")
	must(t, e.s.DeleteOutput(e.ctx, "out/a"))
	must(t, e.s.DeleteOutput(e.ctx, "out/a")) // sweeps may race: deleting twice is fine
	check(now, 10, "out/b", "out/c")
	// Recording a key again moves its expiry.
	must(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/b", AccountID: a.ID, ExpiresAt: now.Add(2 * time.Hour)}))
	check(now, 10, "out/c")
	check(now.Add(90*time.Minute), 10, "out/c", "out/edge", "out/live")
	wantErr(t, e.s.RecordOutput(e.ctx, core.Output{Key: "out/orphan", AccountID: uuid.New(), ExpiresAt: now}), core.ErrNotFound)
}
