package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the pure-Go "sqlite" database/sql driver
)

// OpenSQLite opens the queue on the SQLite file at path, next to the app's own tables.
// River gets its own handle with a single connection: its SQLite driver is early and
// expects to be the only user of its pool.
//
// A SQLite data dir belongs to one process, so a job still marked running at start was
// cut short by a crash: it is made available again at once instead of waiting for River's
// stuck-job rescue.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*Queue, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("jobs: invalid database path %q", path)
	}
	v := url.Values{}
	v.Add("_txlock", "immediate")
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	db, err := sql.Open("sqlite", path+"?"+v.Encode())
	if err != nil {
		return nil, fmt.Errorf("jobs: open: %w", err)
	}
	db.SetMaxOpenConns(1)
	q, err := newQueue(ctx, riversqlite.New(db), cfg)
	if err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running'`); err != nil {
		db.Close()
		return nil, fmt.Errorf("jobs: recover interrupted jobs: %w", err)
	}
	q.closers = append(q.closers, db.Close)
	return q, nil
}

// OpenPostgres opens the queue on a PostgreSQL pool, which the caller keeps and closes.
// Replicas share the queue: jobs are claimed with SKIP LOCKED, maintenance (including
// rescuing jobs of dead replicas) runs on an elected leader.
func OpenPostgres(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Queue, error) {
	if pool == nil {
		return nil, fmt.Errorf("jobs: no PostgreSQL pool")
	}
	// Replicas started together would race to create River's tables: migrate under a
	// session advisory lock, held on one connection (a dead process's session, and its
	// lock, end with it).
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: migration lock: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('thumbforge.jobs.migrate'))`); err != nil {
		return nil, fmt.Errorf("jobs: migration lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('thumbforge.jobs.migrate'))`); err != nil {
			conn.Conn().Close(context.Background()) // closing the session drops the lock
		}
	}()
	return newQueue(ctx, riverpgxv5.New(pool), cfg)
}
