package jobs

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"thumbforge/internal/testutil"
)

// pgPool returns a pool on a fresh schema, dropped when t ends, and its DSN.
func pgPool(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	dsn := testutil.PostgresDSN(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, dsn
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
