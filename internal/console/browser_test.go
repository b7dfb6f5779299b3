package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
)

// browser is the package's one headless Chromium; nil when none is installed.
var browser context.Context

// chromium finds the browser: THUMBFORGE_CHROMIUM, or Debian's chromium on the PATH.
func chromium() string {
	if p := os.Getenv("THUMBFORGE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path := chromium()
	if path == "" {
		fmt.Fprintln(os.Stderr, "!!! internal/console: browser tests SKIPPED: no chromium found (apt-get install -y chromium, or set THUMBFORGE_CHROMIUM) !!!")
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "thumbforge-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The flags keep Chromium off the network it cannot reach here (background
	// services, component updates, sync) and let it run as root in a container.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 800))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "internal/console: start chromium:", err)
		return 1
	}
	browser = ctx
	return m.Run()
}

// site is a running thumbforge (the real app on a real socket) with an account and a key.
type site struct {
	App     *app.App
	URL     string
	Key     string
	Account uuid.UUID
	// sample is a JPEG file on disk, for upload fields.
	sample string
}

// startSite runs the app on 127.0.0.1:0 with a temp data dir; opts change its configuration.
func startSite(t *testing.T, credits int64, opts ...func(*app.Config)) *site {
	t.Helper()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.MaintenanceTTL = 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, o := range opts {
		o(&cfg)
	}
	a := apptest.StartApp(t, cfg)
	s := &site{App: a, URL: a.URL()}
	s.Account, s.Key = apptest.NewAccount(t, a.Store, "creator", credits)
	return s
}

// tab is one browser tab of a test, with what its pages wrote to the console.
type tab struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	log []chromedp.ConsoleMessage
}

// cspRecorder reports any Content-Security-Policy violation as a console error, which
// the tab's check then fails on (the browser's own report is not always a console entry).
const cspRecorder = `document.addEventListener('securitypolicyviolation', (e) =>
  console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`

// newTab opens a tab at width x height. When the test ends it fails on any console
// error, uncaught exception or CSP violation, except the API's own 4xx answers, which the
// pages show to the user.
func newTab(t *testing.T, width, height int64) *tab {
	t.Helper()
	if browser == nil {
		t.Skip("chromium is not installed: browser test skipped (see the line printed above)")
	}
	ctx, cancel := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, time.Minute)
	tb := &tab{t: t, ctx: ctx}
	done := make(chan struct{})
	t.Cleanup(func() {
		tb.checkConsole()
		cancelTimeout()
		cancel()
		<-done
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatal(err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.log = append(tb.log, m)
			tb.mu.Unlock()
		}
	}()
	add := chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspRecorder})
		return err
	})
	if err := chromedp.Do(ctx, add); err != nil {
		t.Fatal(err)
	}
	return tb
}

// apiAnswer is an API refusal (4xx, or 503 in maintenance) that the page shows in words.
var apiAnswer = regexp.MustCompile(`status of (4\d\d|503)`)

func (tb *tab) checkConsole() {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, m := range tb.log {
		if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException {
			continue
		}
		if m.Source == "network" && apiAnswer.MatchString(m.Text) && (strings.Contains(m.URL, "/v2/") || strings.Contains(m.URL, "/admin/api/")) {
			continue // an API error the page shows next to its field
		}
		tb.t.Errorf("browser console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1)
	}
}

// do runs actions, failing the test on error.
func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression and decodes its result.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// navigated matches the errors of a poll whose page went away under it.
var navigated = regexp.MustCompile(`Cannot find context|context was destroyed|target navigated or closed`)

// until waits for a JavaScript condition to hold (bounded by the tab's deadline).
func (tb *tab) until(what, cond string) {
	tb.t.Helper()
	for {
		_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(50*time.Millisecond)))
		if err == nil {
			return
		}
		// A page that reloads itself (signing out does) ends the poll's JavaScript context.
		if tb.ctx.Err() == nil && navigated.MatchString(err.Error()) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		tb.t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// text returns the text content of the first element matching a CSS selector.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, sel))
}

// open navigates to a page of the site.
func (tb *tab) open(s *site, path string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(s.URL + path))
	tb.until("the page's script", `document.readyState === 'complete' && (!document.getElementById('signin').hidden || !document.getElementById('app').hidden)`)
}

// signIn opens path and signs in with secret through the sign-in form.
func (tb *tab) signIn(s *site, path, secret string) {
	tb.t.Helper()
	tb.open(s, path)
	tb.do(chromedp.SendKeys(chromedp.ID("signin-secret"), secret), chromedp.Click(chromedp.CSS(`#signin-form button[type="submit"]`)))
	tb.until("signed in", `!document.getElementById('app').hidden`)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
