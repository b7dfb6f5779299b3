package app

import (
	"context"
	"fmt"
	"os"

	"thumbforge/internal/core"
	"thumbforge/internal/store/postgres"
	"thumbforge/internal/store/sqlite"
)

// OpenStore opens the configured store, applying migrations. Admin commands use it too.
func OpenStore(ctx context.Context, cfg Config) (core.Store, error) {
	if cfg.Now == nil {
		cfg.Now = Defaults().Now
	}
	if cfg.Database != "" {
		st, err := postgres.Open(ctx, cfg.Database, postgres.Options{Now: cfg.Now})
		if err != nil {
			return nil, fmt.Errorf("open PostgreSQL: %w", err)
		}
		return st, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	st, err := sqlite.Open(ctx, cfg.SQLitePath(), sqlite.Options{Now: cfg.Now})
	if err != nil {
		return nil, fmt.Errorf("open SQLite: %w", err)
	}
	return st, nil
}
