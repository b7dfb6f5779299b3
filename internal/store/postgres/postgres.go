// Package postgres is thumbforge's scale-out store: core.Store on PostgreSQL, and a
// cluster-wide core.Limiter.
//
// It opens a pgxpool and serves database/sql from it (pgx/v5/stdlib): the store's SQL is
// shared with the SQLite backend through database/sql, while pgx-native users of the same
// database (the River job queue's driver takes a *pgxpool.Pool) share the same pool.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"thumbforge/internal/store/migrate"
	"thumbforge/internal/store/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tunes a PostgreSQL store.
type Options struct {
	// Now is the clock for every stored timestamp; nil means time.Now.
	Now func() time.Time
	// MaxConns bounds the pool; 0 means 16. database/sql may use three quarters of it,
	// so pgx-native users of Pool always find a connection.
	MaxConns int32
}

// Store is core.Store on PostgreSQL.
type Store struct {
	*sqlstore.Store
	pool *pgxpool.Pool
}

// Open connects to dsn (a postgres:// URL or key=value string) and migrates the schema.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("postgres: invalid DSN") // the DSN may hold a password: not echoed
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	cfg.MaxConns = opts.MaxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	db.SetMaxOpenConns(max(1, int(opts.MaxConns)*3/4))
	// Idle database/sql connections hold pool connections; hand them back soon.
	db.SetConnMaxIdleTime(time.Minute)
	sub, err := fs.Sub(migrations, "migrations")
	if err == nil {
		err = migrate.Run(ctx, db, sub, lockMigrations)
	}
	if err != nil {
		db.Close()
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	d := sqlstore.Dialect{
		ForUpdate:    " FOR UPDATE",
		SkipLocked:   " FOR UPDATE SKIP LOCKED",
		Time:         func(t time.Time) any { return t },
		IsUnique:     hasCode("23505"),
		IsForeignKey: hasCode("23503"),
		Day:          func(col string) string { return "floor(extract(epoch FROM " + col + ") / 86400)::bigint" },
	}
	return &Store{Store: sqlstore.New(db, d, opts.Now), pool: pool}, nil
}

// lockMigrations serialises migrations of one schema across processes.
func lockMigrations(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('thumbforge.migrate.' || current_schema()))`)
	return err
}

// Pool returns the pgx pool, for pgx-native components (job queue).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes database/sql and the pool beneath it.
func (s *Store) Close() error {
	err := s.Store.Close()
	s.pool.Close()
	return err
}

// hasCode returns a test for a PostgreSQL SQLSTATE.
func hasCode(code string) func(error) bool {
	return func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == code
	}
}
