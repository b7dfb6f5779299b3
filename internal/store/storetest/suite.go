// Package storetest is the conformance suite every core.Store backend must pass, and the
// one every shared core.Limiter must pass.
package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// Clock is a settable clock handed to the store under test, so expiry is testable
// without sleeping.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock stopped at a fixed instant with sub-second digits.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Opener returns a fresh, empty store whose timestamps come from now; it registers its
// own cleanup on t.
type Opener func(t *testing.T, now func() time.Time) core.Store

// env is one subtest's store and clock.
type env struct {
	t     *testing.T
	ctx   context.Context
	s     core.Store
	clock *Clock
}

// Run runs every conformance test against stores from open, each on its own store.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(e *env)
	}{
		{"Ping", func(e *env) { must(e.t, e.s.Ping(e.ctx)) }},
		{"Accounts", testAccounts},
		{"UpdateAccount", testUpdateAccount},
		{"Keys", testKeys},
		{"Settings", testSettings},
		{"AdminToken", testAdminToken},
		{"LedgerPage", testLedgerPage},
		{"Usage", testUsage},
		{"CustomModelsPage", testCustomModelsPage},
		{"OutputsPage", testOutputsPage},
		{"Outputs", testOutputs},
		{"Grant", testGrant},
		{"ReserveChargeRelease", testReserveChargeRelease},
		{"ReserveRace", testReserveRace},
		{"TopUpRace", testTopUpRace},
		{"SmartBalance", testSmartBalance},
		{"SettleInvoice", testSettleInvoice},
		{"Requests", testRequests},
		{"RequestErrors", testRequestErrors},
		{"AsyncRequests", testAsyncRequests},
		{"CancelRequest", testCancelRequest},
		{"ExpireAsync", testExpireAsync},
		{"CreateTraining", testCreateTraining},
		{"HeldReservations", testHeldReservations},
		{"SettleHold", testSettleHold},
		{"SettleHoldRace", testSettleHoldRace},
		{"CustomModels", testCustomModels},
		{"UpdateCustomModel", testUpdateCustomModel},
		{"DeleteCustomModel", testDeleteCustomModel},
		{"Idempotency", testIdempotency},
		{"IdempotencyRace", testIdempotencyRace},
		{"Webhooks", testWebhooks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewClock()
			tc.fn(&env{t: t, ctx: context.Background(), s: open(t, c.Now), clock: c})
		})
	}
}

// account creates an account with balance and top-up amount.
func (e *env) account(balance, topup int64) *core.Account {
	e.t.Helper()
	a := &core.Account{Name: "acme", APIAccess: true, Balance: balance, TopUpAmount: topup}
	must(e.t, e.s.CreateAccount(e.ctx, a))
	return a
}

// balance returns the account's balance and checks it equals the sum of its ledger.
func (e *env) balance(id uuid.UUID) int64 {
	e.t.Helper()
	a, err := e.s.GetAccount(e.ctx, id)
	must(e.t, err)
	entries, err := e.s.Ledger(e.ctx, id, 1_000_000)
	must(e.t, err)
	var sum int64
	for _, l := range entries {
		sum += l.Delta
	}
	if sum != a.Balance {
		e.t.Fatalf("balance %d but ledger sums to %d", a.Balance, sum)
	}
	if a.Balance < 0 {
		e.t.Fatalf("negative balance %d", a.Balance)
	}
	return a.Balance
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails unless err wraps target.
func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("got error %v, want %v", err, target)
	}
}

// wantCode fails unless err is a public error with code.
func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if e := core.AsError(err); e == nil || e.Code != code {
		t.Fatalf("got error %v, want code %s", err, code)
	}
}

// wantTime fails unless got is the instant want, at microsecond precision.
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want.Truncate(time.Microsecond)) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}
