package engines

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Builtin is the name of the default engine, which needs no backend.
const Builtin = "builtin"

// Config selects and configures the image engine (the --engine flags).
type Config struct {
	// Kind is "builtin" (or empty) or a registered generative kind: openai, comfyui, sdapi.
	Kind string
	// URLs are the backends of the pool (--engine-url, comma-separated).
	URLs []string
	// Key is --engine-key: never logged or returned.
	Key string
	// Model is --engine-model; empty takes the kind's default.
	Model string
	// Concurrency is the most requests in flight per backend; 0 takes the kind's default.
	Concurrency int
	// Text says who draws the headline: overlay (default) or model.
	Text TextMode
	// Workflows is --engine-workflows (comfyui).
	Workflows string
	// HealthInterval is how often unhealthy backends are pinged; 0 means 10 s.
	HealthInterval time.Duration
}

// Generative reports whether the configuration asks for a generative backend.
func (c Config) Generative() bool { return c.Kind != "" && c.Kind != Builtin }

// ParseURLs splits a comma-separated --engine-url value, dropping empty entries and
// trailing slashes.
func ParseURLs(s string) []string {
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Validate checks the configuration against the known kinds and fills defaults.
func (c *Config) Validate(kinds map[string]Kind) error {
	if !c.Generative() {
		if len(c.URLs) > 0 {
			return errors.New("--engine-url is set but --engine is builtin: name the engine (--engine openai|comfyui|sdapi)")
		}
		return nil
	}
	kind, ok := kinds[c.Kind]
	if !ok {
		return fmt.Errorf("--engine %q: unknown engine (known: %s)", c.Kind, strings.Join(KindNames(kinds), ", "))
	}
	var errs []error
	if len(c.URLs) == 0 {
		errs = append(errs, fmt.Errorf("--engine %s needs --engine-url", c.Kind))
	}
	seen := map[string]bool{}
	for _, raw := range c.URLs {
		u, err := url.Parse(raw)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs = append(errs, fmt.Errorf("--engine-url %q: want an http:// or https:// URL", Label(raw)))
		case seen[raw]:
			errs = append(errs, fmt.Errorf("--engine-url %q is listed twice", Label(raw)))
		}
		seen[raw] = true
	}
	if c.Concurrency < 0 || c.Concurrency > 256 {
		errs = append(errs, fmt.Errorf("--engine-concurrency %d: want 1 to 256 (0 for the engine's default)", c.Concurrency))
	}
	if c.Concurrency == 0 {
		c.Concurrency = max(1, kind.DefaultConcurrency)
	}
	switch c.Text {
	case "":
		c.Text = TextOverlay
	case TextOverlay, TextModel:
	default:
		errs = append(errs, fmt.Errorf("--engine-text %q: want overlay or model", c.Text))
	}
	if c.Workflows != "" && !kind.Workflows {
		errs = append(errs, fmt.Errorf("--engine-workflows is for the comfyui engine, not %s", c.Kind))
	}
	if c.Model == "" {
		c.Model = kind.DefaultModel
	}
	if c.HealthInterval <= 0 {
		c.HealthInterval = 10 * time.Second
	}
	return errors.Join(errs...)
}

// KindNames lists the kinds' names, sorted, builtin first.
func KindNames(kinds map[string]Kind) []string {
	names := []string{Builtin}
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names[1:])
	return names
}
