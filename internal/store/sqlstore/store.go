// Package sqlstore implements core.Store once, on database/sql, for every SQL dialect
// thumbforge supports; the sqlite and postgres packages supply the driver, the schema and
// a Dialect describing how the two differ.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// Dialect is what differs between SQL engines: row locks, time encoding, error codes.
type Dialect struct {
	// ForUpdate is appended to a SELECT that must lock the rows it reads (" FOR UPDATE"),
	// or empty where a write transaction already excludes other writers (SQLite).
	ForUpdate string
	// SkipLocked is appended to a SELECT that locks its rows unless another transaction
	// holds them, in which case the rows are skipped (" FOR UPDATE SKIP LOCKED"); empty
	// where writers are serialized anyway (SQLite).
	SkipLocked string
	// Time encodes a time as a query argument.
	Time func(time.Time) any
	// IsUnique reports a unique or primary-key violation.
	IsUnique func(error) bool
	// IsForeignKey reports a foreign-key violation.
	IsForeignKey func(error) bool
	// Day is the SQL expression of a time column's UTC day, as whole days since 1970-01-01.
	Day func(col string) string
	// SerializeWrites queues this process's write transactions in Go. SQLite admits one
	// writer at a time; waiting on a Go semaphore costs nothing, where waiting on the
	// database's busy handler means sleeping and retrying.
	SerializeWrites bool
	// CacheStatements prepares each query once per connection and reuses it. Only for a
	// dialect whose transactions never wait for another connection while preparing one
	// (SQLite, whose writers are serialized): preparing on the pool from inside a
	// transaction could otherwise wait on a pool that transactions have exhausted.
	CacheStatements bool
}

// Store implements core.Store on a *sql.DB whose schema the dialect package migrated.
type Store struct {
	db     *sql.DB
	d      Dialect
	now    func() time.Time
	writer chan struct{} // a one-slot semaphore when the dialect serializes writes
	stmts  sync.Map      // query text -> *sql.Stmt
}

var _ core.Store = (*Store)(nil)

// New returns a Store on db; now is the clock for every timestamp it writes.
func New(db *sql.DB, d Dialect, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	s := &Store{db: db, d: d, now: now}
	if d.SerializeWrites {
		s.writer = make(chan struct{}, 1)
	}
	return s
}

// DB returns the underlying pool, for components that share the database (job queue).
func (s *Store) DB() *sql.DB { return s.db }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Close closes the pool.
func (s *Store) Close() error {
	s.closeStatements()
	return s.db.Close()
}

// clock returns now at the precision both dialects keep (microseconds), in UTC, so that
// a value read back equals the value written.
func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// t encodes a time argument for the dialect.
func (s *Store) t(v time.Time) any { return s.d.Time(v.UTC().Truncate(time.Microsecond)) }

// nt encodes an optional time argument.
func (s *Store) nt(v *time.Time) any {
	if v == nil {
		return nil
	}
	return s.t(*v)
}

// inTx runs fn in one transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx querier) error) error {
	release, err := s.acquireWriter(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer release()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", op, err)
	}
	defer tx.Rollback()
	if err := fn(prepared{s: s, tx: tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// fail wraps a driver error for op, attaching the sentinel it stands for. The driver's
// text stays inside for the log; the API layer never shows it to a client.
func (s *Store) fail(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s: %w", op, core.ErrNotFound)
	case s.d.IsUnique(err):
		return fmt.Errorf("%s: %w: %w", op, core.ErrConflict, err)
	case s.d.IsForeignKey(err):
		// The only foreign keys point at accounts: the account named does not exist.
		return fmt.Errorf("%s: account: %w: %w", op, core.ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// newID returns id, or a fresh time-ordered UUID when id is zero.
func newID(id uuid.UUID) (uuid.UUID, error) {
	if id != uuid.Nil {
		return id, nil
	}
	return uuid.NewV7()
}

// timeScan scans a time column of either dialect: unix microseconds or a timestamp.
type timeScan struct{ dst *time.Time }

func (ts timeScan) Scan(v any) error {
	switch x := v.(type) {
	case int64:
		*ts.dst = time.UnixMicro(x).UTC()
	case time.Time:
		*ts.dst = x.UTC()
	case nil:
		*ts.dst = time.Time{}
	default:
		return fmt.Errorf("time column: unexpected %T", v)
	}
	return nil
}

// nullTimeScan scans an optional time column into a pointer left nil for NULL.
type nullTimeScan struct{ dst **time.Time }

func (ts nullTimeScan) Scan(v any) error {
	if v == nil {
		*ts.dst = nil
		return nil
	}
	var t time.Time
	if err := (timeScan{&t}).Scan(v); err != nil {
		return err
	}
	*ts.dst = &t
	return nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// querier runs queries: the pool or a transaction (see prepared).
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
