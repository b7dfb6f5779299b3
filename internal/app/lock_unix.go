//go:build unix

package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDataDir takes an exclusive lock on DataDir/serve.lock for as long as the process
// lives: a second `serve` on the same SQLite data would run the first one's jobs and
// settle its credit holds as if it had died. flock is released by the kernel when the
// process exits, SIGKILL included, so a crash never leaves a stale lock. The file keeps the
// holder's pid for the message.
func lockDataDir(dir string) (func() error, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dir, "serve.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock data dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(holder))
			if pid == "" {
				pid = "unknown"
			}
			return nil, fmt.Errorf("the data directory %s is in use by another thumbforge serve (pid %s): one process per SQLite data directory; use PostgreSQL (--database) to run several", dir, pid)
		}
		return nil, fmt.Errorf("lock data dir: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f.Close, nil // closing the file drops the lock
}
