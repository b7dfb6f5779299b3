// Package memory is the process's memory budget: every decode, render and request body
// reserves the bytes it will hold before it allocates them, from one weighted semaphore,
// so that what clients send can make requests wait or fail with 429, never exhaust memory.
package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"thumbforge/internal/core"
)

// DefaultBudget is the budget when none is configured.
const DefaultBudget = 1 << 30

// MinBudget is the smallest budget accepted: a share (a quarter) must hold the largest
// request body twice (its bytes, then the strings decoded from it).
const MinBudget = 256 << 20

// ShareDivisor sets one reservation's largest size, the budget's "share": a quarter, so
// that at least four of the largest decodes can run at once. Anything that could never
// fit is refused up front rather than left waiting.
const ShareDivisor = 4

// ErrTooLarge is returned for a reservation larger than Share: it could never be granted.
var ErrTooLarge = errors.New("memory: more than one share of the budget")

// Budget is a process-wide budget of bytes.
type Budget struct {
	total   int64
	maxWait time.Duration
	sem     *semaphore.Weighted
	used    atomic.Int64
	// admit bounds what request bodies hold to half the budget, so that the decodes and
	// renders of requests already admitted always find room: without it, bodies waiting
	// in line could take all of it while the requests holding them wait for their decodes.
	admit *semaphore.Weighted
}

// New returns a budget of total bytes; a reservation waits at most maxWait (and never past
// its context's deadline) before it fails with TOO_MANY_REQUESTS.
func New(total int64, maxWait time.Duration) (*Budget, error) {
	if total < MinBudget {
		return nil, fmt.Errorf("memory budget %s is below the minimum of %s", FormatSize(total), FormatSize(MinBudget))
	}
	if maxWait <= 0 {
		return nil, errors.New("memory budget: the longest wait must be positive")
	}
	return &Budget{total: total, maxWait: maxWait, sem: semaphore.NewWeighted(total), admit: semaphore.NewWeighted(total / 2)}, nil
}

// Total is the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// Share is the largest single reservation (Total / ShareDivisor).
func (b *Budget) Share() int64 { return b.total / ShareDivisor }

// InUse is how many bytes are reserved now.
func (b *Budget) InUse() int64 { return b.used.Load() }

// Reserve takes n bytes, waiting in line (first come, first served) for at most the
// budget's longest wait or ctx's deadline, whichever is first. It returns ErrTooLarge
// (wrapped) for n over Share, a TOO_MANY_REQUESTS error when the wait ends, and ctx's
// error when the caller went away. The Reservation must be released.
func (b *Budget) Reserve(ctx context.Context, n int64) (*Reservation, error) {
	if n > b.Share() {
		return nil, fmt.Errorf("%w: %s of %s", ErrTooLarge, FormatSize(n), FormatSize(b.Share()))
	}
	n = max(n, 0)
	// Free memory is granted whatever the deadline says: only a wait can run out of time.
	if b.sem.TryAcquire(n) {
		b.used.Add(n)
		return &Reservation{b: b, n: n}, nil
	}
	wctx, cancel := context.WithTimeout(ctx, b.maxWait)
	defer cancel()
	if err := b.sem.Acquire(wctx, n); err != nil {
		return nil, b.waitError(ctx, err)
	}
	b.used.Add(n)
	return &Reservation{b: b, n: n}, nil
}

// Admit reserves n bytes for a request body: from the half of the budget bodies may hold,
// then like Reserve. It waits, and fails, as Reserve does.
func (b *Budget) Admit(ctx context.Context, n int64) (*Reservation, error) {
	n = max(n, 0)
	if !b.admit.TryAcquire(n) {
		wctx, cancel := context.WithTimeout(ctx, b.maxWait)
		defer cancel()
		if err := b.admit.Acquire(wctx, n); err != nil {
			return nil, b.waitError(ctx, err)
		}
	}
	r, err := b.Reserve(ctx, n)
	if err != nil {
		b.admit.Release(n)
		return nil, err
	}
	r.admitted = n
	return r, nil
}

// waitError is the error of a wait that ended: the caller's own cancellation, or 429.
func (b *Budget) waitError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	return core.Wrap(core.CodeTooManyRequests, err,
		"The server is busy: not enough memory is free for this request now. Retry later.")
}

// Reservation is bytes taken from a Budget.
type Reservation struct {
	b        *Budget
	mu       sync.Mutex
	n        int64
	admitted int64 // of n, what Admit took from the bodies' half
}

// Shrink gives back what the reservation holds beyond keep bytes: a decode's scratch
// space once only its result remains.
func (r *Reservation) Shrink(keep int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if keep < 0 {
		keep = 0
	}
	if d := r.n - keep; d > 0 {
		r.n = keep
		r.b.used.Add(-d)
		r.b.sem.Release(d)
		if a := r.admitted - keep; a > 0 {
			r.admitted = keep
			r.b.admit.Release(a)
		}
	}
}

// Release gives every byte back; releasing twice is harmless.
func (r *Reservation) Release() { r.Shrink(0) }
