// Package migrate applies numbered SQL migrations (0001_init.sql, ...) from an embedded
// file system, for every SQL dialect thumbforge supports.
package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Lock is called first in every migration transaction so that two processes starting at
// once apply each migration exactly once. SQLite needs none when its transactions begin
// IMMEDIATE; PostgreSQL takes an advisory transaction lock.
type Lock func(ctx context.Context, tx *sql.Tx) error

// Run applies, in order, every NNNN_name.sql file of fsys not yet recorded in the
// schema_migrations table, each in its own transaction. Running it again does nothing.
func Run(ctx context.Context, db *sql.DB, fsys fs.FS, lock Lock) error {
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: list: %w", err)
	}
	byVersion := make(map[int]string, len(files))
	versions := make([]int, 0, len(files))
	for _, name := range files {
		v, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil || v <= 0 {
			return fmt.Errorf("migrate: %s: name must start with a positive version number", name)
		}
		if other, dup := byVersion[v]; dup {
			return fmt.Errorf("migrate: %s and %s share version %d", other, name, v)
		}
		byVersion[v] = name
		versions = append(versions, v)
	}
	sort.Ints(versions)
	for _, v := range versions {
		body, err := fs.ReadFile(fsys, byVersion[v])
		if err != nil {
			return fmt.Errorf("migrate: read %s: %w", byVersion[v], err)
		}
		if err := apply(ctx, db, v, string(body), lock); err != nil {
			return fmt.Errorf("migrate: %s: %w", byVersion[v], err)
		}
	}
	return nil
}

// apply runs one migration unless it is recorded; the version table is created under the
// lock because concurrent CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL.
func apply(ctx context.Context, db *sql.DB, version int, body string, lock Lock) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if lock != nil {
		if err := lock(ctx, tx); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version); err != nil {
		return err
	}
	return tx.Commit()
}
