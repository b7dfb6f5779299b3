package main

import (
	"flag"
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

// envBool is the boolean value of env, or def when unset or unparsable.
func envBool(env string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(env)); err == nil {
		return v
	}
	return def
}

// envDuration is the duration value of env, or def when unset or unparsable.
func envDuration(env string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(env)); err == nil {
		return v
	}
	return def
}

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
