//go:build !unix

package app

// lockDataDir does not lock on systems without flock: there, running two servers on one
// SQLite data directory is the operator's to avoid (docs/OPERATIONS.md).
func lockDataDir(string) (func() error, error) { return func() error { return nil }, nil }
