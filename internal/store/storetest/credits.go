package storetest

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

func testGrant(e *env) {
	t := e.t
	a := e.account(0, 0)
	bal, err := e.s.Grant(e.ctx, a.ID, 30, "op:alice")
	must(t, err)
	if bal != 30 || e.balance(a.ID) != 30 {
		t.Fatalf("Grant returned %d, want 30", bal)
	}
	for _, amount := range []int64{0, -1, -30} {
		_, err := e.s.Grant(e.ctx, a.ID, amount, "bad")
		wantCode(t, err, core.CodeInvalidAmount)
	}
	_, err = e.s.Grant(e.ctx, uuid.New(), 5, "nobody")
	wantErr(t, err, core.ErrNotFound)
	l, err := e.s.Ledger(e.ctx, a.ID, 10)
	must(t, err)
	if len(l) != 1 || l[0].Kind != core.LedgerGrant || l[0].Delta != 30 || l[0].Amount != 30 || l[0].Ref != "op:alice" ||
		l[0].AccountID != a.ID {
		t.Fatalf("ledger %+v, want one grant of 30", l)
	}
	wantTime(t, "ledger CreatedAt", l[0].CreatedAt, e.clock.Now())
}

func testReserveChargeRelease(e *env) {
	t := e.t
	a := e.account(50, 0)

	r1, err := e.s.Reserve(e.ctx, a.ID, 13, "thumbnail.mdl_4_5", core.Owner{})
	must(t, err)
	if r1.State != core.ReservationHeld || r1.Amount != 13 || r1.AccountID != a.ID || r1.ID.Version() != 7 {
		t.Fatalf("reservation %+v", r1)
	}
	wantTime(t, "reservation CreatedAt", r1.CreatedAt, e.clock.Now())
	if b := e.balance(a.ID); b != 37 {
		t.Fatalf("balance %d after reserving 13 of 50", b)
	}
	must(t, e.s.Charge(e.ctx, r1.ID))
	wantErr(t, e.s.Charge(e.ctx, r1.ID), core.ErrConflict) // charging twice is an error
	must(t, e.s.Release(e.ctx, r1.ID))                     // releasing a charged hold does nothing
	if b := e.balance(a.ID); b != 37 {
		t.Fatalf("balance %d after charge: want 37", b)
	}

	r2, err := e.s.Reserve(e.ctx, a.ID, 20, "edit", core.Owner{})
	must(t, err)
	must(t, e.s.Release(e.ctx, r2.ID))
	must(t, e.s.Release(e.ctx, r2.ID)) // idempotent
	wantErr(t, e.s.Charge(e.ctx, r2.ID), core.ErrConflict)
	if b := e.balance(a.ID); b != 37 {
		t.Fatalf("balance %d after release: want 37", b)
	}

	_, err = e.s.Reserve(e.ctx, a.ID, 38, "training", core.Owner{})
	wantErr(t, err, core.ErrInsufficient)
	r3, err := e.s.Reserve(e.ctx, a.ID, 37, "training", core.Owner{}) // exactly the balance
	must(t, err)
	if b := e.balance(a.ID); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
	must(t, e.s.Release(e.ctx, r3.ID))

	wantErr(t, e.s.Charge(e.ctx, uuid.New()), core.ErrNotFound)
	wantErr(t, e.s.Release(e.ctx, uuid.New()), core.ErrNotFound)
	_, err = e.s.Reserve(e.ctx, uuid.New(), 1, "edit", core.Owner{})
	wantErr(t, err, core.ErrNotFound)
	_, err = e.s.Reserve(e.ctx, a.ID, -1, "edit", core.Owner{})
	wantCode(t, err, core.CodeInvalidAmount)

	// Every movement, newest first: kinds, deltas, amounts and references.
	l, err := e.s.Ledger(e.ctx, a.ID, 0)
	must(t, err)
	want := []struct {
		kind          core.LedgerKind
		delta, amount int64
		ref, op       string
	}{
		{core.LedgerRelease, 37, 37, r3.ID.String(), "training"},
		{core.LedgerReserve, -37, 37, r3.ID.String(), "training"},
		{core.LedgerRelease, 20, 20, r2.ID.String(), "edit"},
		{core.LedgerReserve, -20, 20, r2.ID.String(), "edit"},
		{core.LedgerCharge, 0, 13, r1.ID.String(), "thumbnail.mdl_4_5"},
		{core.LedgerReserve, -13, 13, r1.ID.String(), "thumbnail.mdl_4_5"},
		{core.LedgerGrant, 50, 50, "opening balance", ""},
	}
	if len(l) != len(want) {
		t.Fatalf("ledger has %d rows, want %d: %+v", len(l), len(want), l)
	}
	for i, w := range want {
		g := l[i]
		if g.Kind != w.kind || g.Delta != w.delta || g.Amount != w.amount || g.Ref != w.ref || g.Operation != w.op {
			t.Fatalf("ledger[%d] = %+v, want %+v", i, g, w)
		}
	}
	l, err = e.s.Ledger(e.ctx, a.ID, 2)
	must(t, err)
	if len(l) != 2 || l[0].Kind != core.LedgerRelease || l[1].Kind != core.LedgerReserve {
		t.Fatalf("Ledger(limit 2) = %+v", l)
	}
}

// testReserveRace: 50 concurrent reservations of 1 on a balance of 10.
func testReserveRace(e *env) {
	t := e.t
	a := e.account(10, 0)
	ok, insufficient := reserveMany(e, a.ID, 50, core.ErrInsufficient)
	if ok != 10 || insufficient != 40 {
		t.Fatalf("%d reservations succeeded and %d were refused, want 10 and 40", ok, insufficient)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
}

func testSmartBalance(e *env) {
	t := e.t
	cases := []struct {
		name           string
		balance, topup int64
		invoice        core.InvoiceStatus // an earlier invoice in this state, if set
		amount         int64
		wantErr        error
		wantBalance    int64 // after the reservation
		wantInvoice    bool  // a new open invoice of topup
	}{
		{name: "enough balance, no top-up", balance: 20, topup: 50, amount: 13, wantBalance: 7},
		{name: "enough balance despite open invoice", balance: 20, topup: 50, invoice: core.InvoiceOpen, amount: 13, wantBalance: 7},
		{name: "top-up covers", balance: 5, topup: 20, amount: 13, wantBalance: 12, wantInvoice: true},
		{name: "top-up exactly covers", balance: 3, topup: 10, amount: 13, wantBalance: 0, wantInvoice: true},
		{name: "top-up too small", balance: 2, topup: 10, amount: 13, wantErr: core.ErrInsufficient, wantBalance: 2},
		{name: "top-up off", balance: 5, amount: 13, wantErr: core.ErrInsufficient, wantBalance: 5},
		{name: "open invoice blocks", balance: 5, topup: 20, invoice: core.InvoiceOpen, amount: 13, wantErr: core.ErrPaymentFailed, wantBalance: 5},
		{name: "failed invoice blocks", balance: 5, topup: 20, invoice: core.InvoiceFailed, amount: 13, wantErr: core.ErrPaymentFailed, wantBalance: 5},
		{name: "paid invoice does not block", balance: 5, topup: 20, invoice: core.InvoicePaid, amount: 13, wantBalance: 12, wantInvoice: true},
	}
	for _, tc := range cases {
		a := e.account(0, tc.topup)
		if tc.invoice != "" {
			// The earlier invoice comes from a real top-up, then is settled as the case says.
			_, err := e.s.Reserve(e.ctx, a.ID, 1, "score", core.Owner{})
			must(t, err)
			inv, err := e.s.Invoices(e.ctx, a.ID)
			must(t, err)
			if len(inv) != 1 || inv[0].Status != core.InvoiceOpen || inv[0].Amount != tc.topup {
				t.Fatalf("%s: setup invoices %+v", tc.name, inv)
			}
			if tc.invoice != core.InvoiceOpen {
				must(t, e.s.SettleInvoice(e.ctx, inv[0].ID, tc.invoice))
			}
		}
		// Bring the balance to the case's starting point through the ledger.
		cur := e.balance(a.ID)
		switch {
		case cur < tc.balance:
			_, err := e.s.Grant(e.ctx, a.ID, tc.balance-cur, "setup")
			must(t, err)
		case cur > tc.balance:
			_, err := e.s.Reserve(e.ctx, a.ID, cur-tc.balance, "setup", core.Owner{})
			must(t, err)
		}
		before, err := e.s.Invoices(e.ctx, a.ID)
		must(t, err)

		r, err := e.s.Reserve(e.ctx, a.ID, tc.amount, "thumbnail.mdl_4_5", core.Owner{})
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s: got %v, want %v", tc.name, err, tc.wantErr)
			}
		} else if err != nil || r.Amount != tc.amount {
			t.Fatalf("%s: Reserve = %+v, %v", tc.name, r, err)
		}
		if b := e.balance(a.ID); b != tc.wantBalance {
			t.Fatalf("%s: balance %d, want %d", tc.name, b, tc.wantBalance)
		}
		after, err := e.s.Invoices(e.ctx, a.ID)
		must(t, err)
		if got := len(after) - len(before); got != map[bool]int{false: 0, true: 1}[tc.wantInvoice] {
			t.Fatalf("%s: %d new invoices (%+v)", tc.name, got, after)
		}
		if tc.wantInvoice {
			inv := after[0] // newest first
			if inv.Status != core.InvoiceOpen || inv.Amount != tc.topup || inv.AccountID != a.ID || inv.SettledAt != nil {
				t.Fatalf("%s: new invoice %+v", tc.name, inv)
			}
			l, err := e.s.Ledger(e.ctx, a.ID, 2)
			must(t, err)
			if l[1].Kind != core.LedgerTopUp || l[1].Delta != tc.topup || l[1].Ref != inv.ID.String() {
				t.Fatalf("%s: ledger %+v, want a topup row for invoice %s before the hold", tc.name, l, inv.ID)
			}
		}
	}
}

func testSettleInvoice(e *env) {
	t := e.t
	a := e.account(0, 20)
	_, err := e.s.Reserve(e.ctx, a.ID, 15, "score", core.Owner{}) // opens an invoice
	must(t, err)
	inv, err := e.s.Invoices(e.ctx, a.ID)
	must(t, err)
	id := inv[0].ID

	wantCode(t, e.s.SettleInvoice(e.ctx, id, core.InvoiceOpen), core.CodeValidation)
	wantErr(t, e.s.SettleInvoice(e.ctx, uuid.New(), core.InvoicePaid), core.ErrNotFound)

	e.clock.Advance(time.Minute)
	must(t, e.s.SettleInvoice(e.ctx, id, core.InvoiceFailed))
	_, err = e.s.Reserve(e.ctx, a.ID, 10, "score", core.Owner{}) // 5 left: short, failed invoice blocks
	wantErr(t, err, core.ErrPaymentFailed)

	// A failed payment that later succeeds lifts the block.
	e.clock.Advance(time.Minute)
	must(t, e.s.SettleInvoice(e.ctx, id, core.InvoicePaid))
	must(t, e.s.SettleInvoice(e.ctx, id, core.InvoicePaid)) // same state: nothing to do
	wantErr(t, e.s.SettleInvoice(e.ctx, id, core.InvoiceFailed), core.ErrConflict)
	inv, err = e.s.Invoices(e.ctx, a.ID)
	must(t, err)
	if inv[0].Status != core.InvoicePaid || inv[0].SettledAt == nil {
		t.Fatalf("invoice %+v, want paid with a settle time", inv[0])
	}
	wantTime(t, "SettledAt", *inv[0].SettledAt, e.clock.Now())

	_, err = e.s.Reserve(e.ctx, a.ID, 10, "score", core.Owner{}) // 5 + 20 top-up covers 10
	must(t, err)
	if b := e.balance(a.ID); b != 15 {
		t.Fatalf("balance %d, want 15", b)
	}
	inv, err = e.s.Invoices(e.ctx, a.ID)
	must(t, err)
	if len(inv) != 2 || inv[0].Status != core.InvoiceOpen || inv[1].ID != id {
		t.Fatalf("invoices %+v, want a new open one first", inv)
	}
}
