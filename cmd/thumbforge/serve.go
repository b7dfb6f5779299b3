package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"thumbforge/internal/app"
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := app.Defaults()
	fs := newFlags("serve", stderr)
	fs.StringVar(&cfg.Addr, "addr", envStr("THUMBFORGE_ADDR", cfg.Addr), "listen address (THUMBFORGE_ADDR)")
	fs.StringVar(&cfg.DataDir, "data", envStr("THUMBFORGE_DATA", cfg.DataDir), "data directory (THUMBFORGE_DATA)")
	fs.StringVar(&cfg.Database, "database", envStr("THUMBFORGE_DATABASE", ""), "postgres:// URL; empty uses SQLite in the data dir (THUMBFORGE_DATABASE)")
	fs.StringVar(&cfg.Blobs, "blobs", envStr("THUMBFORGE_BLOBS", ""), "s3:// URL; empty stores files in the data dir (THUMBFORGE_BLOBS)")
	fs.StringVar(&cfg.PublicURL, "public-url", envStr("THUMBFORGE_PUBLIC_URL", ""), "base URL of output links; default http://ADDR (THUMBFORGE_PUBLIC_URL)")
	fs.BoolVar(&cfg.AllowPrivateFetch, "allow-private-fetch", envBool("THUMBFORGE_ALLOW_PRIVATE_FETCH", false), "let image URLs reach private and loopback addresses: local development only (THUMBFORGE_ALLOW_PRIVATE_FETCH)")
	fs.DurationVar(&cfg.Timeouts.Generation, "generation-timeout", envDuration("THUMBFORGE_GENERATION_TIMEOUT", cfg.Timeouts.Generation), "generation stage deadline (THUMBFORGE_GENERATION_TIMEOUT)")
	fs.DurationVar(&cfg.Timeouts.Scoring, "scoring-timeout", envDuration("THUMBFORGE_SCORING_TIMEOUT", cfg.Timeouts.Scoring), "scoring stage deadline (THUMBFORGE_SCORING_TIMEOUT)")
	fs.DurationVar(&cfg.Timeouts.Title, "title-timeout", envDuration("THUMBFORGE_TITLE_TIMEOUT", cfg.Timeouts.Title), "title stage deadline (THUMBFORGE_TITLE_TIMEOUT)")
	fs.DurationVar(&cfg.SweepInterval, "sweep-interval", envDuration("THUMBFORGE_SWEEP_INTERVAL", cfg.SweepInterval), "how often expired outputs are deleted (THUMBFORGE_SWEEP_INTERVAL)")
	fs.DurationVar(&cfg.LimitLeaseTTL, "limit-lease-ttl", envDuration(app.LimitLeaseTTLEnv, 0), "with PostgreSQL: how long a crashed replica's in-flight slots stay taken; 0 means 60s (THUMBFORGE_LIMIT_LEASE_TTL)")
	fs.DurationVar(&cfg.JobTimeout, "job-timeout", envDuration("THUMBFORGE_JOB_TIMEOUT", cfg.JobTimeout), "deadline of one training job attempt (THUMBFORGE_JOB_TIMEOUT)")
	fs.DurationVar(&cfg.JobRescueAfter, "job-rescue-after", envDuration("THUMBFORGE_JOB_RESCUE_AFTER", 0), "how long a job may stay running before it is taken for a dead replica's and retried; 0 means job timeout + 1m, must exceed the job timeout (THUMBFORGE_JOB_RESCUE_AFTER)")
	prices := fs.String("prices", envStr("THUMBFORGE_PRICES", ""), "price overrides in credits, e.g. thumbnail.mdl_4=30,title=5 (THUMBFORGE_PRICES)")
	fs.StringVar(&cfg.TitlesURL, "titles-url", envStr("THUMBFORGE_TITLES_URL", ""), "OpenAI-compatible chat API base URL for titles, e.g. http://127.0.0.1:11434/v1 (THUMBFORGE_TITLES_URL)")
	fs.StringVar(&cfg.TitlesModel, "titles-model", envStr("THUMBFORGE_TITLES_MODEL", ""), "model name for the titles API (THUMBFORGE_TITLES_MODEL)")
	cfg.TitlesKey = os.Getenv("THUMBFORGE_TITLES_KEY")
	if err := engineFlags(fs, &cfg.Engine); err != nil { // engine.go
		return err
	}
	if err := limitFlags(fs, &cfg); err != nil { // limits.go
		return err
	}
	fs.StringVar(&cfg.PolicyFile, "policy-file", envStr("THUMBFORGE_POLICY_FILE", ""), "file of refused terms, one per line (THUMBFORGE_POLICY_FILE)")
	dev := fs.Bool("dev", envBool("THUMBFORGE_DEV", false), "create once a local account with 1000 credits and print its key (THUMBFORGE_DEV)")
	jsonLogs := fs.Bool("log-json", envBool("THUMBFORGE_LOG_JSON", false), "write logs as JSON (THUMBFORGE_LOG_JSON)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if cfg.Prices, err = app.ParsePrices(cfg.Prices, *prices); err != nil {
		return err
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *jsonLogs {
		h = slog.NewJSONHandler(stderr, nil)
	}
	cfg.Logger = slog.New(h)

	setMemoryLimit(cfg.MemoryBudget, cfg.Logger)
	a, err := app.New(ctx, cfg)
	if err != nil {
		return err
	}
	if *dev {
		key, err := app.EnsureDevAccount(ctx, a.Store, cfg.DataDir)
		if err != nil {
			a.Close()
			return err
		}
		fmt.Fprintf(stdout, "dev API key: %s\n", key)
	}
	if err := a.Start(nil); err != nil {
		a.Close()
		return err
	}
	<-ctx.Done()
	cfg.Logger.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	return a.Shutdown(sctx)
}
