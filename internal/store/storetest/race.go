package storetest

import (
	"errors"
	"sync"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// reserveMany runs n concurrent reservations of 1 credit and counts the successes and the
// refusals with want; any other error fails the test.
func reserveMany(e *env, account uuid.UUID, n int, want error) (ok, refused int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var other []error
	for range n {
		wg.Go(func() {
			_, err := e.s.Reserve(e.ctx, account, 1, "score", core.Owner{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, want):
				refused++
			default:
				other = append(other, err)
			}
		})
	}
	wg.Wait()
	if len(other) > 0 {
		e.t.Fatalf("unexpected errors: %v", other)
	}
	return ok, refused
}

// testTopUpRace: concurrent reservations on an empty account with smart balance open
// exactly one invoice; its top-up serves as many as it covers, the rest are blocked by it.
func testTopUpRace(e *env) {
	t := e.t
	a := e.account(0, 10)
	ok, blocked := reserveMany(e, a.ID, 20, core.ErrPaymentFailed)
	inv, err := e.s.Invoices(e.ctx, a.ID)
	must(t, err)
	if len(inv) != 1 || ok != 10 || blocked != 10 {
		t.Fatalf("%d invoices, %d reserved, %d blocked; want 1, 10, 10", len(inv), ok, blocked)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
}
