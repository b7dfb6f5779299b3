package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// prepared runs queries on the pool (tx nil) or inside a transaction, as cached prepared
// statements when the dialect asks for it. SQLite parses a query's text on every
// unprepared call, which cost a fifth of a paid request's CPU; a statement prepared once
// per connection does not. (pgx caches statements by itself.)
type prepared struct {
	s  *Store
	tx *sql.Tx
}

// pool returns the store's pool with prepared statements.
func (s *Store) pool() prepared { return prepared{s: s} }

// stmt returns the cached statement for query, bound to the transaction when there is one,
// or nil when the dialect does not cache statements.
func (p prepared) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if !p.s.d.CacheStatements {
		return nil, nil
	}
	st, ok := p.s.stmts.Load(query)
	if !ok {
		fresh, err := p.s.db.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		if prev, loaded := p.s.stmts.LoadOrStore(query, fresh); loaded {
			fresh.Close()
			st = prev
		} else {
			st = fresh
		}
	}
	if p.tx != nil {
		return p.tx.StmtContext(ctx, st.(*sql.Stmt)), nil
	}
	return st.(*sql.Stmt), nil
}

// ExecContext runs a statement. Outside a transaction it still waits its turn as a writer.
func (p prepared) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if p.tx == nil {
		release, err := p.s.acquireWriter(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	st, err := p.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.ExecContext(ctx, args...)
	case p.tx != nil:
		return p.tx.ExecContext(ctx, query, args...)
	}
	return p.s.db.ExecContext(ctx, query, args...)
}

// QueryContext runs a query returning rows.
func (p prepared) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.QueryContext(ctx, args...)
	case p.tx != nil:
		return p.tx.QueryContext(ctx, query, args...)
	}
	return p.s.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query returning one row. A statement that cannot be prepared is
// run unprepared, so that its error surfaces through Row.Scan as usual.
func (p prepared) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.stmt(ctx, query)
	if err != nil || st == nil {
		if p.tx != nil {
			return p.tx.QueryRowContext(ctx, query, args...)
		}
		return p.s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// acquireWriter takes the writer slot when the dialect serializes writes.
func (s *Store) acquireWriter(ctx context.Context) (func(), error) {
	if s.writer == nil {
		return func() {}, nil
	}
	select {
	case s.writer <- struct{}{}:
		return func() { <-s.writer }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to write: %w", ctx.Err())
	}
}

// closeStatements closes every cached statement.
func (s *Store) closeStatements() {
	s.stmts.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		s.stmts.Delete(k)
		return true
	})
}
