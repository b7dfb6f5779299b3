package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
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
	storetest.RunConcurrentOpen(t, "migrations", func() (storetest.DBStore, error) {
		return sqlite.Open(context.Background(), path, sqlite.Options{})
	})
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, p := range []string{"", "a?b", "a#b"} {
		if _, err := sqlite.Open(context.Background(), p, sqlite.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

// TestOwnerBackfill: holds from before owners were recorded get theirs on upgrade.
func TestOwnerBackfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "thumbforge.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.RunOwnerBackfill(t, db, "migrations", nil, func(v time.Time) any { return v.UnixMicro() }, func() core.Store {
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
