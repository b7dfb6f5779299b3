package postgres_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"thumbforge/internal/core"
	"thumbforge/internal/store/postgres"
	"thumbforge/internal/store/storetest"
	"thumbforge/internal/testutil"
)

// schemaDSN returns a DSN on a fresh schema, dropped when t ends.
func schemaDSN(t *testing.T) string { return testutil.PostgresDSN(t) }

func open(t *testing.T, dsn string, now func() time.Time) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn, postgres.Options{Now: now, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) core.Store {
		return open(t, schemaDSN(t), now)
	})
}

func TestLimiter(t *testing.T) {
	storetest.RunLimiter(t, func(t *testing.T) storetest.LimiterHarness {
		s := open(t, schemaDSN(t), nil)
		l, err := postgres.NewLimiter(s.DB(), postgres.LimiterConfig{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return storetest.LimiterHarness{Limiter: l, Expire: func(t *testing.T, key string) {
			if _, err := s.DB().Exec(`UPDATE leases SET expires_at = now() - interval '1 second' WHERE key = $1`, key); err != nil {
				t.Fatal(err)
			}
		}}
	})
}

// TestLimiterCloseReleases: a replica shutting down gives its slots back at once.
func TestLimiterCloseReleases(t *testing.T) {
	s := open(t, schemaDSN(t), nil)
	a, err := postgres.NewLimiter(s.DB(), postgres.LimiterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok, err := a.Acquire(ctx, "k", 1); !ok || err != nil {
		t.Fatalf("Acquire = %v, %v", ok, err)
	}
	b, err := postgres.NewLimiter(s.DB(), postgres.LimiterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, ok, _ := b.Acquire(ctx, "k", 1); ok {
		t.Fatal("second replica took a slot beyond the limit")
	}
	a.Close()
	a.Close() // twice is harmless
	if _, ok, err := b.Acquire(ctx, "k", 1); !ok || err != nil {
		t.Fatalf("after Close, Acquire = %v, %v; want the slot", ok, err)
	}
}

func TestLimiterConfig(t *testing.T) {
	for _, c := range []struct {
		cfg postgres.LimiterConfig
		ok  bool
	}{
		{postgres.LimiterConfig{}, true},
		{postgres.LimiterConfig{TTL: 10 * time.Second, Heartbeat: 2 * time.Second}, true},
		{postgres.LimiterConfig{TTL: time.Millisecond}, false},
		{postgres.LimiterConfig{TTL: 10 * time.Second, Heartbeat: 10 * time.Second}, false},
		{postgres.LimiterConfig{Heartbeat: -time.Second}, false},
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: Validate() = %v", c.cfg, err)
		}
	}
}

// TestConcurrentOpen: replicas starting at once on one schema migrate it exactly once.
func TestConcurrentOpen(t *testing.T) {
	dsn := schemaDSN(t)
	storetest.RunConcurrentOpen(t, "migrations", func() (storetest.DBStore, error) {
		return postgres.Open(context.Background(), dsn, postgres.Options{MaxConns: 2})
	})
}

func TestOpenHidesDSN(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://u:s3cret@[bad", postgres.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Open error %v: want an error without the password", err)
	}
}

// TestOwnerBackfill: holds from before owners were recorded get theirs on upgrade.
func TestOwnerBackfill(t *testing.T) {
	dsn := schemaDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.RunOwnerBackfill(t, db, "migrations", nil, func(v time.Time) any { return v }, func() core.Store {
		return open(t, dsn, nil)
	})
}
