package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// serveOptions is what serve's flags fill.
type serveOptions struct {
	cfg           app.Config
	prices        *string
	dev, jsonLogs *bool
	env           envReader // every typed THUMBFORGE_* variable goes through it
}

// serveFlags registers serve's flags, each with its THUMBFORGE_* variable as default.
func serveFlags(stderr io.Writer) (*flag.FlagSet, *serveOptions) {
	o := &serveOptions{cfg: app.Defaults()}
	cfg, env := &o.cfg, &o.env
	fs := newFlags("serve", stderr)
	fs.StringVar(&cfg.Addr, "addr", envStr("THUMBFORGE_ADDR", cfg.Addr), "listen address (THUMBFORGE_ADDR)")
	fs.StringVar(&cfg.DataDir, "data", envStr("THUMBFORGE_DATA", cfg.DataDir), "data directory (THUMBFORGE_DATA)")
	fs.StringVar(&cfg.Database, "database", envStr("THUMBFORGE_DATABASE", ""), "postgres:// URL; empty uses SQLite in the data dir (THUMBFORGE_DATABASE)")
	fs.StringVar(&cfg.Blobs, "blobs", envStr("THUMBFORGE_BLOBS", ""), "s3:// URL; empty stores files in the data dir (THUMBFORGE_BLOBS)")
	fs.StringVar(&cfg.PublicURL, "public-url", envStr("THUMBFORGE_PUBLIC_URL", ""), "base URL of output links; default http://ADDR (THUMBFORGE_PUBLIC_URL)")
	fs.BoolVar(&cfg.AllowPrivateFetch, "allow-private-fetch", env.bool("THUMBFORGE_ALLOW_PRIVATE_FETCH", false), "let image URLs reach private and loopback addresses: local development only (THUMBFORGE_ALLOW_PRIVATE_FETCH)")
	fs.DurationVar(&cfg.Timeouts.Generation, "generation-timeout", env.duration("THUMBFORGE_GENERATION_TIMEOUT", cfg.Timeouts.Generation), "generation stage deadline (THUMBFORGE_GENERATION_TIMEOUT)")
	fs.DurationVar(&cfg.Timeouts.Scoring, "scoring-timeout", env.duration("THUMBFORGE_SCORING_TIMEOUT", cfg.Timeouts.Scoring), "scoring stage deadline (THUMBFORGE_SCORING_TIMEOUT)")
	fs.DurationVar(&cfg.Timeouts.Title, "title-timeout", env.duration("THUMBFORGE_TITLE_TIMEOUT", cfg.Timeouts.Title), "title stage deadline (THUMBFORGE_TITLE_TIMEOUT)")
	fs.DurationVar(&cfg.Timeouts.Inputs, "input-timeout", env.duration("THUMBFORGE_INPUT_TIMEOUT", cfg.Timeouts.Inputs), "time a request has, besides its stage, to read its images and store its output; also bounds saving a persona's or style's images (THUMBFORGE_INPUT_TIMEOUT)")
	fs.DurationVar(&cfg.SweepInterval, "sweep-interval", env.duration("THUMBFORGE_SWEEP_INTERVAL", cfg.SweepInterval), "how often expired outputs are deleted and the credits of lost work settled (THUMBFORGE_SWEEP_INTERVAL)")
	fs.DurationVar(&cfg.SettleGrace, "settle-grace", env.duration("THUMBFORGE_SETTLE_GRACE", core.DefaultSettleGrace), "how long past its deadline a request waits before another replica takes it for lost and settles its credits; covers clock differences between replicas (THUMBFORGE_SETTLE_GRACE)")
	fs.DurationVar(&cfg.LimitLeaseTTL, "limit-lease-ttl", env.duration(app.LimitLeaseTTLEnv, 0), "with PostgreSQL: how long a crashed replica's in-flight slots stay taken; 0 means 60s (THUMBFORGE_LIMIT_LEASE_TTL)")
	fs.DurationVar(&cfg.JobTimeout, "job-timeout", env.duration("THUMBFORGE_JOB_TIMEOUT", cfg.JobTimeout), "deadline of one training job attempt (THUMBFORGE_JOB_TIMEOUT)")
	fs.IntVar(&cfg.AsyncWorkers, "async-workers", env.int("THUMBFORGE_ASYNC_WORKERS", 0), "asynchronous requests (Prefer: respond-async) run at once by this process; 0 means 4 (THUMBFORGE_ASYNC_WORKERS)")
	fs.DurationVar(&cfg.JobRescueAfter, "job-rescue-after", env.duration("THUMBFORGE_JOB_RESCUE_AFTER", 0), "how long a job may stay running before it is taken for a dead replica's and retried; 0 means job timeout + 1m, must exceed the job timeout (THUMBFORGE_JOB_RESCUE_AFTER)")
	o.prices = fs.String("prices", envStr("THUMBFORGE_PRICES", ""), "price overrides in credits, e.g. thumbnail.mdl_4=30,title=5 (THUMBFORGE_PRICES)")
	fs.StringVar(&cfg.TitlesURL, "titles-url", envStr("THUMBFORGE_TITLES_URL", ""), "OpenAI-compatible chat API base URL for titles, e.g. http://127.0.0.1:11434/v1 (THUMBFORGE_TITLES_URL)")
	fs.StringVar(&cfg.TitlesModel, "titles-model", envStr("THUMBFORGE_TITLES_MODEL", ""), "model name for the titles API (THUMBFORGE_TITLES_MODEL)")
	cfg.TitlesKey = os.Getenv("THUMBFORGE_TITLES_KEY")
	engineFlags(fs, env, &cfg.Engine) // engine.go
	limitFlags(fs, env, cfg)          // limits.go
	fs.StringVar(&cfg.PolicyFile, "policy-file", envStr("THUMBFORGE_POLICY_FILE", ""), "file of refused terms, one per line (THUMBFORGE_POLICY_FILE)")
	o.dev = fs.Bool("dev", env.bool("THUMBFORGE_DEV", false), "create once a local account with 1000 credits and print its key (THUMBFORGE_DEV)")
	o.jsonLogs = fs.Bool("log-json", env.bool("THUMBFORGE_LOG_JSON", false), "write logs as JSON (THUMBFORGE_LOG_JSON)")
	return fs, o
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := serveFlags(stderr)
	if err := o.env.Err(); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg, prices, dev, jsonLogs := o.cfg, o.prices, o.dev, o.jsonLogs // as parsed
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
