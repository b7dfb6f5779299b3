// Package app wires configuration into a running thumbforge: store, blobs, engines, the
// HTTP server and background sweeps. main runs it, and so do the end-to-end tests.
package app

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"

	"thumbforge/internal/api"
	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/registry"
	"thumbforge/internal/memory"
)

// Config is everything a thumbforge process is told.
type Config struct {
	// Addr is the listen address.
	Addr string
	// DataDir holds the SQLite database, local blobs and the link-signing secret.
	DataDir string
	// Database is empty for SQLite in DataDir, or a postgres:// URL.
	Database string
	// Blobs is empty for files in DataDir, or an s3:// URL.
	Blobs string
	// PublicURL is the base of links to outputs; defaults to http://Addr.
	PublicURL string
	// AllowPrivateFetch lets image URLs point at private and loopback addresses.
	AllowPrivateFetch bool
	// FetchTLS, when set, is the TLS configuration of image fetches (tests' own servers).
	FetchTLS *tls.Config
	Timeouts core.Timeouts
	Prices   core.Prices
	// SweepInterval is how often expired outputs are deleted and the credit holds of
	// finished or lost work settled.
	SweepInterval time.Duration
	// SettleGrace is how long past its deadline a request (or a persona's creation) waits
	// before the reconciler takes its process for dead; 0 means core.DefaultSettleGrace.
	SettleGrace time.Duration
	// LimitLeaseTTL is how long a crashed replica's in-flight slots stay taken (PostgreSQL only); 0 means 60 s.
	LimitLeaseTTL time.Duration
	// JobTimeout bounds one attempt of a training job; 0 means the queue's default.
	JobTimeout time.Duration
	// JobRescueAfter is how long a job may stay running before it is taken for a dead
	// replica's and retried; 0 means JobTimeout + 1 minute. Must exceed JobTimeout.
	JobRescueAfter time.Duration
	// AsyncWorkers is how many asynchronous requests run at once in this process; 0 means
	// the queue's default (4).
	AsyncWorkers int
	// AsyncWait is how long an accepted asynchronous request may wait for its job before
	// it is given up (0: core.DefaultAsyncWait); ProgressInterval how often running ones
	// write progress and look for a cancellation (0: core.DefaultProgressInterval).
	AsyncWait        time.Duration
	ProgressInterval time.Duration
	// WebhookRetries are the waits between webhook delivery attempts; empty means the
	// queue's schedule (jobs.DefaultWebhookRetries). Tests shorten them.
	WebhookRetries []time.Duration
	// MaintenanceTTL is how long the maintenance switch is cached per process.
	MaintenanceTTL time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests at shutdown.
	ShutdownTimeout time.Duration
	// TitlesURL, TitlesModel and TitlesKey select an OpenAI-compatible chat API for titles.
	TitlesURL, TitlesModel, TitlesKey string
	// Engine selects the image engine: the builtin (default) or a pool of generative
	// backends (--engine, --engine-url, ...). Its URLs are the operator's, so trusted:
	// AllowPrivateFetch does not apply to them.
	Engine engines.Config
	// MemoryBudget is the bytes every decode, render and request body reserves from
	// (internal/memory); 0 means memory.DefaultBudget.
	MemoryBudget int64
	// MaxInFlight caps the API requests in flight over every key; 0 means no cap.
	MaxInFlight int
	// LimitScope is api.LimitPerKey (default) or api.LimitPerAccount.
	LimitScope string
	// PolicyFile replaces the default list of refused terms.
	PolicyFile string
	Logger     *slog.Logger
	// Now is the clock; tests move it to prove expiry.
	Now func() time.Time
}

// Defaults returns the embedded defaults: one machine, zero setup.
func Defaults() Config {
	return Config{
		Addr:            "127.0.0.1:8080",
		DataDir:         "./data",
		Timeouts:        core.DefaultTimeouts(),
		Prices:          core.DefaultPrices(),
		SweepInterval:   5 * time.Minute,
		JobTimeout:      2 * time.Minute,
		MaintenanceTTL:  time.Second,
		ShutdownTimeout: 30 * time.Second,
		MemoryBudget:    memory.DefaultBudget,
		MaxInFlight:     DefaultMaxInFlight,
		LimitScope:      api.LimitPerKey,
	}
}

// DefaultMaxInFlight is the process-wide cap on API requests in flight.
const DefaultMaxInFlight = 64

// Validate checks the configuration and fills derived defaults.
func (c *Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("the data directory must be set"))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("listen address %q: %w", c.Addr, err))
	}
	if c.Database != "" && !strings.HasPrefix(c.Database, "postgres://") && !strings.HasPrefix(c.Database, "postgresql://") {
		errs = append(errs, fmt.Errorf("database %q: only postgres:// URLs are supported (empty means SQLite in the data dir)", c.Database))
	}
	if c.Blobs != "" && !strings.HasPrefix(c.Blobs, "s3://") {
		errs = append(errs, fmt.Errorf("blobs %q: only s3:// URLs are supported (empty means files in the data dir)", c.Blobs))
	}
	for name, d := range map[string]time.Duration{"generation": c.Timeouts.Generation, "scoring": c.Timeouts.Scoring,
		"title": c.Timeouts.Title, "input": c.Timeouts.Inputs} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("the %s timeout must be positive", name))
		}
	}
	for op, p := range c.Prices {
		if p < 0 {
			errs = append(errs, fmt.Errorf("price of %s must not be negative", op))
		}
	}
	if c.MemoryBudget == 0 {
		c.MemoryBudget = memory.DefaultBudget
	}
	if c.MemoryBudget < memory.MinBudget {
		errs = append(errs, fmt.Errorf("the memory budget %s is below the minimum of %s", memory.FormatSize(c.MemoryBudget), memory.FormatSize(memory.MinBudget)))
	}
	if c.MaxInFlight < 0 {
		errs = append(errs, errors.New("the in-flight cap must not be negative (0: no cap)"))
	}
	switch c.LimitScope {
	case "":
		c.LimitScope = api.LimitPerKey
	case api.LimitPerKey, api.LimitPerAccount:
	default:
		errs = append(errs, fmt.Errorf("limit scope %q: want %s or %s", c.LimitScope, api.LimitPerKey, api.LimitPerAccount))
	}
	if err := c.Engine.Validate(registry.Kinds()); err != nil {
		errs = append(errs, err)
	}
	if c.SettleGrace < 0 {
		errs = append(errs, errors.New("the settle grace must not be negative"))
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = 5 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return errors.Join(errs...)
}

// SQLitePath is where the embedded database lives.
func (c *Config) SQLitePath() string { return filepath.Join(c.DataDir, "thumbforge.db") }

// ParsePrices reads a price table override: "thumbnail.mdl_4=30,title=5".
func ParsePrices(base core.Prices, s string) (core.Prices, error) {
	out := core.Prices{}
	for k, v := range base {
		out[k] = v
	}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		var n int64
		if _, err := fmt.Sscan(v, &n); !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("price %q: want operation=credits with credits >= 0", part)
		}
		if _, known := base[k]; !known {
			return nil, fmt.Errorf("price %q: unknown operation %q", part, k)
		}
		out[k] = n
	}
	return out, nil
}

// requestLease bounds how long one request can run: its stages' deadlines one after the
// other, and time for fetching inputs and storing the output. A keyed request still
// running after it is taken for one whose process died.
func (c *Config) requestLease() time.Duration {
	return c.Timeouts.Generation + c.Timeouts.Scoring + c.Timeouts.Title + 5*time.Minute
}
