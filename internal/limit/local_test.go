package limit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLocalAdmitsExactlyLimit(t *testing.T) {
	l := NewLocal()
	var ok atomic.Int32
	var wg sync.WaitGroup
	releases := make(chan func(), 30)
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, got, err := l.Acquire(context.Background(), "k", 10)
			if err != nil {
				t.Error(err)
			}
			if got {
				ok.Add(1)
				releases <- rel
			}
		}()
	}
	wg.Wait()
	close(releases)
	if ok.Load() != 10 {
		t.Fatalf("admitted %d, want 10", ok.Load())
	}
	for rel := range releases {
		rel()
		rel() // a second release must not free another slot
	}
	if n := l.InUse("k"); n != 0 {
		t.Fatalf("in use after release = %d", n)
	}
	if _, got, _ := l.Acquire(context.Background(), "other", 1); !got {
		t.Fatal("keys must be independent")
	}
}
