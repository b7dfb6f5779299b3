package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/store/sqlite"
	"thumbforge/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) core.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "thumbforge.db"), sqlite.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestConcurrentOpen: processes starting at once on one file migrate it exactly once.
func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "thumbforge.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d migrations recorded, want 1", n)
	}
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b", "a#b"} {
		if _, err := sqlite.Open(context.Background(), p, sqlite.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}
