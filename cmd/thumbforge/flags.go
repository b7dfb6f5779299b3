package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}

// envStr is the value of env, or def when unset.
func envStr(env, def string) string {
	if v, ok := os.LookupEnv(env); ok {
		return v
	}
	return def
}

// envReader reads THUMBFORGE_* variables as the defaults of flags. A variable that is set
// but does not parse is not replaced by the default: it is remembered, and Err names it,
// so that a command refuses to start on it (THUMBFORGE_JOB_TIMEOUT=90 is an error, not
// the default). An empty variable counts as unset. Every typed variable goes through one,
// so that new flags get the same rule.
type envReader struct {
	errs []error
}

// lookup returns the variable's value, if set and not empty.
func (e *envReader) lookup(env string) (string, bool) {
	v, ok := os.LookupEnv(env)
	return v, ok && v != ""
}

// parse reads env with parse, or returns def when unset; want describes a good value.
func envParse[T any](e *envReader, env string, def T, want string, parse func(string) (T, error)) T {
	v, ok := e.lookup(env)
	if !ok {
		return def
	}
	x, err := parse(v)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q: want %s", env, v, want))
		return def
	}
	return x
}

// bool is the boolean value of env (true, false, 1, 0), or def when unset.
func (e *envReader) bool(env string, def bool) bool {
	return envParse(e, env, def, "true or false", strconv.ParseBool)
}

// duration is the duration value of env (90s, 2m, 1h30m), or def when unset.
func (e *envReader) duration(env string, def time.Duration) time.Duration {
	return envParse(e, env, def, "a duration with its unit, such as 90s or 2m", time.ParseDuration)
}

// int is the whole-number value of env, or def when unset.
func (e *envReader) int(env string, def int) int {
	return envParse(e, env, def, "a whole number", strconv.Atoi)
}

// Err names every variable that did not parse, or is nil.
func (e *envReader) Err() error { return errors.Join(e.errs...) }

// parseInterleaved parses flags that may come before, between or after positional
// arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
