// Package apptest starts the real app inside a test process, for tests that talk to it over
// HTTP (end-to-end and browser tests).
package apptest

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// StartApp runs the app of cfg in this process on a free loopback port, with its public
// URL set to that address, and shuts it down when the test ends.
func StartApp(t testing.TB, cfg app.Config) *app.App {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = ln.Addr().String()
	cfg.PublicURL = "http://" + cfg.Addr
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	if err := a.Start(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	})
	return a
}

// NewAccount creates an account with API access, credits and a key; it returns the
// account's id and the key's secret.
func NewAccount(t testing.TB, st core.Store, name string, credits int64) (uuid.UUID, string) {
	t.Helper()
	ctx := context.Background()
	acct := &core.Account{Name: name, APIAccess: true, Concurrency: core.DefaultConcurrency}
	if err := st.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	if credits > 0 {
		if _, err := st.Grant(ctx, acct.ID, credits, "test"); err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := app.CreateKey(ctx, st, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID, key
}

// Clock is a settable clock shared by an app (Config.Now) and its test: the real time
// moved by an offset.
type Clock struct {
	mu  sync.Mutex
	off time.Duration
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// Set puts the clock at off from the real time.
func (c *Clock) Set(off time.Duration) {
	c.mu.Lock()
	c.off = off
	c.mu.Unlock()
}
