package memory

import (
	"context"
	"errors"
	"testing"
	"time"

	"thumbforge/internal/core"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "1GiB": 1 << 30, "1g": 1 << 30, "1.5G": 3 << 29, "800MB": 800e6,
		"1073741824": 1 << 30, " 64 mib ": 64 << 20, "2KiB": 2048, "100b": 100,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1GiB", "1 parsec", "1e3", "1GiBB", "99999999999TiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	for _, n := range []int64{512 << 20, 1 << 30, 3 << 29, 100} {
		if got, _ := ParseSize(FormatSize(n)); got != n && n%(1<<20) == 0 {
			t.Errorf("FormatSize(%d) = %q does not read back", n, FormatSize(n))
		}
	}
}

func TestReserveWaitsThenRefuses(t *testing.T) {
	b, err := New(MinBudget, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	share := b.Share()
	var held []*Reservation
	for range ShareDivisor {
		r, err := b.Reserve(context.Background(), share)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, r)
	}
	if b.InUse() != b.Total() {
		t.Fatalf("in use %d, want %d", b.InUse(), b.Total())
	}
	// Full: a reservation waits until its deadline and then is TOO_MANY_REQUESTS.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := b.Reserve(ctx, 1); core.CodeOf(err) != core.CodeTooManyRequests {
		t.Fatalf("full budget: %v, want TOO_MANY_REQUESTS", err)
	}
	// A caller that went away gets its context's error, not a 429.
	gone, stop := context.WithCancel(context.Background())
	stop()
	if _, err := b.Reserve(gone, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	// Freed bytes go to the waiter.
	got := make(chan error, 1)
	go func() {
		r, err := b.Reserve(context.Background(), share/2)
		if err == nil {
			r.Release()
		}
		got <- err
	}()
	held[0].Shrink(share / 2)
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	for _, r := range held {
		r.Release()
		r.Release() // twice is harmless
	}
	if b.InUse() != 0 {
		t.Fatalf("in use %d after release", b.InUse())
	}
	if _, err := b.Reserve(context.Background(), share+1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over a share: %v", err)
	}
}

func TestBudgetBounds(t *testing.T) {
	if _, err := New(MinBudget-1, time.Second); err == nil {
		t.Fatal("budget below the minimum accepted")
	}
	if _, err := New(MinBudget, 0); err == nil {
		t.Fatal("zero wait accepted")
	}
}

func TestScopeReleasesHeld(t *testing.T) {
	b, _ := New(MinBudget, time.Second)
	ctx, end := WithScope(context.Background())
	r, _ := b.Reserve(ctx, 1000)
	Hold(ctx, r)
	if b.InUse() != 1000 {
		t.Fatalf("in use %d", b.InUse())
	}
	end()
	if b.InUse() != 0 {
		t.Fatalf("scope end left %d in use", b.InUse())
	}
	r2, _ := b.Reserve(ctx, 10)
	Hold(ctx, r2) // scope over: released at once
	Hold(context.Background(), nil)
	if b.InUse() != 0 {
		t.Fatalf("hold after end kept %d", b.InUse())
	}
}

// TestBodiesHoldAtMostHalf: bodies wait once they hold half the budget, while decodes
// still find the other half.
func TestBodiesHoldAtMostHalf(t *testing.T) {
	b, _ := New(MinBudget, time.Hour)
	var bodies []*Reservation
	for range 2 { // two shares: half the budget
		body, err := b.Admit(context.Background(), b.Share())
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := b.Admit(ctx, 1); core.CodeOf(err) != core.CodeTooManyRequests {
		t.Fatalf("a body past half the budget: %v", err)
	}
	dec, err := b.Reserve(context.Background(), b.Share())
	if err != nil {
		t.Fatalf("a decode beside the bodies: %v", err)
	}
	dec.Release()
	bodies[0].Release()
	bodies[1].Shrink(0)
	if again, err := b.Admit(context.Background(), b.Share()); err != nil {
		t.Fatalf("after the body ended: %v", err)
	} else {
		again.Release()
	}
	if b.InUse() != 0 {
		t.Fatalf("in use %d", b.InUse())
	}
}
