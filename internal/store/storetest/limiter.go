package storetest

import (
	"context"
	"sync"
	"testing"

	"thumbforge/internal/core"
)

// LimiterHarness is a limiter under test and a way to make a key's leases expire as if
// their holder had crashed long ago.
type LimiterHarness struct {
	Limiter core.Limiter
	// Expire ends every lease of key without releasing it.
	Expire func(t *testing.T, key string)
}

// RunLimiter runs the conformance tests of a shared core.Limiter; open returns a fresh one.
func RunLimiter(t *testing.T, open func(t *testing.T) LimiterHarness) {
	t.Run("ConcurrentAcquire", func(t *testing.T) {
		t.Parallel()
		h := open(t)
		releases := acquireMany(t, h.Limiter, "key-a", 10, 30)
		if len(releases) != 10 {
			t.Fatalf("%d of 30 concurrent acquisitions succeeded with limit 10, want 10", len(releases))
		}
		// Another key has its own slots.
		if more := acquireMany(t, h.Limiter, "key-b", 10, 3); len(more) != 3 {
			t.Fatalf("other key got %d of 3 slots", len(more))
		}
		ctx := context.Background()
		if _, ok, err := h.Limiter.Acquire(ctx, "key-a", 10); err != nil || ok {
			t.Fatalf("Acquire at the limit = %v, %v; want refused", ok, err)
		}
		releases[0]()
		releases[0]() // releasing twice frees one slot, not two
		if got := acquireMany(t, h.Limiter, "key-a", 10, 5); len(got) != 1 {
			t.Fatalf("after one release, %d acquisitions succeeded, want 1", len(got))
		}
		// A lower limit applies at once to the slots already taken.
		if _, ok, err := h.Limiter.Acquire(ctx, "key-a", 5); err != nil || ok {
			t.Fatalf("Acquire over a lowered limit = %v, %v; want refused", ok, err)
		}
	})
	t.Run("ExpiredLeaseFreesSlot", func(t *testing.T) {
		t.Parallel()
		h := open(t)
		if got := acquireMany(t, h.Limiter, "key-x", 2, 2); len(got) != 2 {
			t.Fatalf("took %d of 2 slots", len(got))
		}
		if got := acquireMany(t, h.Limiter, "key-x", 2, 1); len(got) != 0 {
			t.Fatal("acquired beyond the limit")
		}
		h.Expire(t, "key-x")
		if got := acquireMany(t, h.Limiter, "key-x", 2, 4); len(got) != 2 {
			t.Fatalf("after expiry, %d acquisitions succeeded, want 2", len(got))
		}
	})
}

// acquireMany runs n concurrent Acquire calls and returns the releases of those that
// succeeded.
func acquireMany(t *testing.T, l core.Limiter, key string, limit, n int) []func() {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		releases []func()
		errs     []error
	)
	for range n {
		wg.Go(func() {
			release, ok, err := l.Acquire(context.Background(), key, limit)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else if ok {
				releases = append(releases, release)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("Acquire errors: %v", errs)
	}
	return releases
}
