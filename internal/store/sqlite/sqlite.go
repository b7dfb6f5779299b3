// Package sqlite is thumbforge's embedded store: core.Store on a SQLite file through the
// pure-Go modernc.org/sqlite driver, in WAL mode.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"thumbforge/internal/store/migrate"
	"thumbforge/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tunes a SQLite store.
type Options struct {
	// Now is the clock for every stored timestamp; nil means time.Now.
	Now func() time.Time
	// MaxConns bounds the pool; 0 means 4. Writers queue on the file lock regardless,
	// readers run in parallel under WAL.
	MaxConns int
	// BusyTimeout is how long a writer waits for the lock; 0 means 10 s.
	BusyTimeout time.Duration
}

// Store is core.Store on SQLite.
type Store struct {
	*sqlstore.Store
}

// Open opens (creating if needed) the database file at path and migrates it.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 10 * time.Second
	}
	// _txlock=immediate makes every transaction take the write lock at BEGIN, so
	// concurrent writers wait their turn (busy_timeout) instead of failing on upgrade.
	q := url.Values{}
	q.Add("_txlock", "immediate")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	db.SetMaxOpenConns(opts.MaxConns)
	db.SetMaxIdleConns(opts.MaxConns)
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := migrate.Run(ctx, db, sub, nil); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	d := sqlstore.Dialect{
		Time:            func(t time.Time) any { return t.UnixMicro() },
		IsUnique:        hasCode(sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY),
		IsForeignKey:    hasCode(sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY),
		Day:             func(col string) string { return col + " / 86400000000" }, // microseconds: integer division
		SerializeWrites: true,
		CacheStatements: true,
	}
	return &Store{Store: sqlstore.New(db, d, opts.Now)}, nil
}

// hasCode returns a test for SQLite extended result codes.
func hasCode(codes ...int) func(error) bool {
	return func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		for _, c := range codes {
			if e.Code() == c {
				return true
			}
		}
		return false
	}
}
