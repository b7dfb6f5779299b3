package main

import (
	"errors"
	"flag"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"

	"thumbforge/internal/api"
	"thumbforge/internal/app"
	"thumbforge/internal/memory"
)

// sizeValue is a flag holding a byte size written like "512MiB".
type sizeValue struct{ n *int64 }

func (v sizeValue) String() string {
	if v.n == nil {
		return ""
	}
	return memory.FormatSize(*v.n)
}

func (v sizeValue) Set(s string) error {
	n, err := memory.ParseSize(s)
	if err == nil {
		*v.n = n
	}
	return err
}

// limitFlags registers the memory budget, the in-flight cap and the limit scope. A value
// from the environment that does not parse stops the start, naming the variable (env).
func limitFlags(fs *flag.FlagSet, env *envReader, cfg *app.Config) {
	cfg.MemoryBudget = envParse(env, "THUMBFORGE_MEMORY_BUDGET", cfg.MemoryBudget, "a size such as 512MiB or 2GiB", memory.ParseSize)
	cfg.MaxInFlight = envParse(env, "THUMBFORGE_MAX_INFLIGHT", cfg.MaxInFlight, "a count (0: no cap)", func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err == nil && n < 0 {
			err = errors.New("negative")
		}
		return n, err
	})
	fs.Var(sizeValue{&cfg.MemoryBudget}, "memory-budget", "memory every decode, render and request body reserves from, e.g. 512MiB, 2GiB; requests that cannot get theirs in time answer 429 (THUMBFORGE_MEMORY_BUDGET)")
	fs.IntVar(&cfg.MaxInFlight, "max-inflight", cfg.MaxInFlight, "most API requests in flight in this process over every key; 0 means no cap (THUMBFORGE_MAX_INFLIGHT)")
	fs.StringVar(&cfg.LimitScope, "limit-scope", envStr("THUMBFORGE_LIMIT_SCOPE", cfg.LimitScope), "what the per-key in-flight limit counts: "+api.LimitPerKey+" (each key) or "+api.LimitPerAccount+" (all keys of an account together) (THUMBFORGE_LIMIT_SCOPE)")
}

// setMemoryLimit gives the Go runtime a soft memory limit a quarter above the budget (plus
// 64 MiB for the runtime and what is not budgeted), so that garbage is collected before the
// process grows far past what its reservations allow. GOMEMLIMIT, when set, wins.
func setMemoryLimit(budget int64, log *slog.Logger) {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return
	}
	limit := budget + budget/4 + 64<<20
	debug.SetMemoryLimit(limit)
	log.Info("memory", "budget", memory.FormatSize(budget), "go_memory_limit", memory.FormatSize(limit))
}
