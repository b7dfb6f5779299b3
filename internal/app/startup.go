package app

import (
	"context"
	"fmt"

	"thumbforge/internal/core"
	"thumbforge/internal/store/postgres"
)

// lockStartup serialises the part of start-up that migrates shared tables the store's
// own lock does not cover (the job queue's), across every replica of one PostgreSQL
// database: replicas started together would otherwise race to create the same tables.
// It returns the unlock; on SQLite (one process per data dir) it does nothing.
func lockStartup(ctx context.Context, st core.Store) (unlock func(), err error) {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return func() {}, nil
	}
	conn, err := pg.Pool().Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("start-up lock: %w", err)
	}
	// A session lock on a connection held until unlock; if the process dies, PostgreSQL
	// ends the session and the lock with it.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('thumbforge.startup'))`); err != nil {
		conn.Release()
		return nil, fmt.Errorf("start-up lock: %w", err)
	}
	return func() {
		_, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('thumbforge.startup'))`)
		if err != nil {
			conn.Conn().Close(context.Background()) // closing the session drops the lock
		}
		conn.Release()
	}, nil
}
