package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// testConcurrentSweeps runs the periodic sweep of three apps on the cluster's database and
// bucket at the same moment, a day later: every replica sweeps, so they race for the same
// expired outputs. Each sweep must succeed, and every expired blob and row must be gone.
func testConcurrentSweeps(t *testing.T, c *cluster, _ *images) {
	ctx := context.Background()
	later := func() time.Time { return time.Now().Add(25 * time.Hour) }
	var apps []*app.App
	for range 3 {
		cfg := app.Defaults()
		cfg.DataDir, cfg.Database, cfg.Blobs = t.TempDir(), c.dsn, c.blobs
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg.Now = later
		a, err := app.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		apps = append(apps, a)
	}
	acct, _ := c.account("sweep", 0, 1)
	owner := uuid.MustParse(acct)
	const n = 120
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("outputs/sweep/%03d.jpg", i)
		if err := apps[i%3].Blobs.Put(ctx, keys[i], []byte("expired output"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		if err := apps[i%3].Store.RecordOutput(ctx, core.Output{Key: keys[i], AccountID: owner, ExpiresAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	errs := make([]error, len(apps))
	var wg sync.WaitGroup
	for i, a := range apps {
		wg.Go(func() { errs[i] = a.Sweep(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent sweeps: %v", err)
	}
	if left, err := apps[0].Store.ExpiredOutputs(ctx, later(), 10); err != nil || len(left) != 0 {
		t.Fatalf("expired outputs left after the sweeps: %q, %v", left, err)
	}
	for _, k := range keys {
		if _, err := apps[0].Blobs.Get(ctx, k); !errors.Is(err, core.ErrNotFound) {
			t.Fatalf("Get(%s) after the sweeps = %v, want ErrNotFound", k, err)
		}
	}
}
