// Package testutil holds helpers shared by tests and benchmarks of several packages.
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// BinaryEnv names another thumbforge binary for the tests that run one (to measure an
// older build with the same test, docs/BENCHMARKS.md); unset, the tree's own is built.
const BinaryEnv = "THUMBFORGE_TEST_BINARY"

// Thumbforge builds cmd/thumbforge once per test process and returns the binary's path.
func Thumbforge(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(BinaryEnv); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "thumbforge-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "thumbforge")
		out, err := exec.Command("go", "build", "-o", binPath, "thumbforge/cmd/thumbforge").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}
