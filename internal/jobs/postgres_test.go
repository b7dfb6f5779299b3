package jobs

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgEnv names the variable holding a PostgreSQL DSN for tests (shared with the store's).
const pgEnv = "THUMBFORGE_TEST_POSTGRES"

// pgPool returns a pool on a fresh schema, dropped when t ends, and its DSN.
func pgPool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	dsn := os.Getenv(pgEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL queue tests skipped: set %s, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", pgEnv)
	}
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	schema := "tf_jobs_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, u.String()
}

func TestPostgresRetriesAndUniqueness(t *testing.T) {
	pool, _ := pgPool(t)
	q, err := OpenPostgres(context.Background(), pool, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	r := newRecorder(1)
	if err := q.Start(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	for range 2 {
		if err := q.EnqueueTraining(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if got := wait(t, r); got != id {
		t.Fatalf("finished %v, want %v", got, id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls[id] != 2 {
		t.Fatalf("calls = %d, want 2 (one failure, one success, no duplicate)", r.calls[id])
	}
}
