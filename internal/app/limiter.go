package app

import (
	"fmt"

	"thumbforge/internal/core"
	"thumbforge/internal/limit"
	"thumbforge/internal/store/postgres"
)

// LimitLeaseTTLEnv names the environment variable that sets Config.LimitLeaseTTL.
const LimitLeaseTTLEnv = "THUMBFORGE_LIMIT_LEASE_TTL"

// openLimiter returns the per-key in-flight limiter. On SQLite one process owns the data,
// so slots are counted in memory; on PostgreSQL every replica counts the same slots, held
// as leases in the database that expire when a crashed replica stops renewing them. The
// limiter is closed (its leases handed back) before the store it uses.
func (a *App) openLimiter(st core.Store) (core.Limiter, error) {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return limit.NewLocal(), nil
	}
	l, err := postgres.NewLimiter(pg.DB(), postgres.LimiterConfig{TTL: a.cfg.LimitLeaseTTL})
	if err != nil {
		return nil, fmt.Errorf("cluster-wide limiter (%s): %w", LimitLeaseTTLEnv, err)
	}
	a.closers = append(a.closers, l.Close)
	return l, nil
}
