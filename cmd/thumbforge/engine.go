package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"thumbforge/internal/engines"
	"thumbforge/internal/engines/registry"
)

// engineFlags registers the --engine flags (and their THUMBFORGE_ENGINE_* variables) on
// fs, filling c; serve and engine check share them. A variable that does not parse is
// remembered by env, which names it.
func engineFlags(fs *flag.FlagSet, env *envReader, c *engines.Config) {
	c.Kind = envStr("THUMBFORGE_ENGINE", engines.Builtin)
	c.URLs = engines.ParseURLs(os.Getenv("THUMBFORGE_ENGINE_URL"))
	c.Key = os.Getenv("THUMBFORGE_ENGINE_KEY")
	c.Text = engines.TextMode(envStr("THUMBFORGE_ENGINE_TEXT", string(engines.TextOverlay)))
	c.Concurrency = env.int("THUMBFORGE_ENGINE_CONCURRENCY", 0)
	fs.StringVar(&c.Kind, "engine", c.Kind, "image engine: "+strings.Join(engines.KindNames(registry.Kinds()), "|")+" (THUMBFORGE_ENGINE)")
	fs.Func("engine-url", "backend URL, or a comma-separated pool; openai: the API base with /v1 (THUMBFORGE_ENGINE_URL)", func(s string) error {
		c.URLs = engines.ParseURLs(s)
		return nil
	})
	fs.StringVar(&c.Key, "engine-key", c.Key, "backend key: openai and comfyui Bearer, sdapi user:pass; prefer the variable, which stays out of ps (THUMBFORGE_ENGINE_KEY)")
	fs.StringVar(&c.Model, "engine-model", os.Getenv("THUMBFORGE_ENGINE_MODEL"), "model: openai gpt-image-1 by default (sd-cpp-local for sd-server), comfyui a checkpoint file (THUMBFORGE_ENGINE_MODEL)")
	fs.IntVar(&c.Concurrency, "engine-concurrency", c.Concurrency, "most requests in flight per backend; 0 is the engine's default: 4 openai, 1 comfyui and sdapi (THUMBFORGE_ENGINE_CONCURRENCY)")
	fs.Func("engine-text", "who draws the headline: overlay (thumbforge, default) or model (THUMBFORGE_ENGINE_TEXT)", func(s string) error {
		c.Text = engines.TextMode(s)
		return nil
	})
	workflowFlags(fs, c) // workflows.go
}

// engineCommand runs "thumbforge engine check": it builds every backend of the
// configured pool, pings it, runs the adapter's own checks and says what works.
func engineCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return fmt.Errorf("usage: thumbforge engine check [--engine ... --engine-url ...]")
	}
	var cfg engines.Config
	fs := newFlags("engine check", stderr)
	var env envReader
	engineFlags(fs, &env, &cfg)
	if err := env.Err(); err != nil {
		return err
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	kinds := registry.Kinds()
	if err := cfg.Validate(kinds); err != nil {
		return err
	}
	if !cfg.Generative() {
		fmt.Fprintln(stdout, "engine builtin: no backend to check; every operation runs in process.")
		return nil
	}
	model := cfg.Model
	if model == "" {
		model = "the server's" // sdapi without --engine-model
	}
	fmt.Fprintf(stdout, "engine %s, model %s, headline %s, %d in flight per backend\n", cfg.Kind, model, cfg.Text, cfg.Concurrency)
	failed := 0
	for _, u := range cfg.URLs {
		if !checkBackend(ctx, stdout, kinds[cfg.Kind], cfg, u) {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d backends do not work", failed, len(cfg.URLs))
	}
	fmt.Fprintf(stdout, "all %d backends work\n", len(cfg.URLs))
	return nil
}

// checkBackend prints the checks of one backend and reports whether all passed. The key
// is removed from everything printed.
func checkBackend(ctx context.Context, out io.Writer, kind engines.Kind, cfg engines.Config, url string) bool {
	redact := func(s string) string {
		if cfg.Key == "" {
			return s
		}
		return strings.ReplaceAll(s, cfg.Key, "[redacted]")
	}
	line := func(ok bool, name, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
		}
		fmt.Fprintf(out, "  %s %s: %s\n", mark, name, redact(detail))
	}
	fmt.Fprintf(out, "backend %s\n", engines.Label(url))
	b, err := kind.New(engines.BackendConfig{URL: url, Key: cfg.Key, Model: cfg.Model, Workflows: cfg.Workflows, Client: engines.NewClient(1)})
	if err != nil {
		line(false, "configuration", err.Error())
		return false
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := b.Ping(pctx); err != nil {
		line(false, "ping", err.Error())
		return false
	}
	line(true, "ping", fmt.Sprintf("answered in %d ms", time.Since(start).Milliseconds()))
	ok := true
	if c, isChecker := b.(engines.Checker); isChecker {
		for _, r := range c.Check(pctx) {
			line(r.OK, r.Name, r.Detail)
			ok = ok && r.OK
		}
	}
	line(true, "the backend does", b.Caps().String())
	if rest := engines.AllCaps &^ b.Caps(); rest != 0 {
		line(true, "the builtin does", rest.String())
	}
	return ok
}
