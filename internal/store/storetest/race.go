package storetest

import (
	"errors"
	"sync"

	"thumbforge/internal/core"
)

// testTopUpRace: concurrent reservations on an empty account with smart balance open
// exactly one invoice; its top-up serves as many as it covers, the rest are blocked by it.
func testTopUpRace(e *env) {
	t := e.t
	a := e.account(0, 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, blocked := 0, 0
	var other []error
	for range 20 {
		wg.Go(func() {
			_, err := e.s.Reserve(e.ctx, a.ID, 1, "score")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, core.ErrPaymentFailed):
				blocked++
			default:
				other = append(other, err)
			}
		})
	}
	wg.Wait()
	if len(other) > 0 {
		t.Fatalf("unexpected errors: %v", other)
	}
	inv, err := e.s.Invoices(e.ctx, a.ID)
	must(t, err)
	if len(inv) != 1 || ok != 10 || blocked != 10 {
		t.Fatalf("%d invoices, %d reserved, %d blocked; want 1, 10, 10", len(inv), ok, blocked)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
}
