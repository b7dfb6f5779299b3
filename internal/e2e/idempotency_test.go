package e2e

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
	"thumbforge/internal/core"
	"thumbforge/internal/testutil"
)

// keyed sends a POST with an Idempotency-Key.
func (e *env) keyed(path, key string, body any) response {
	e.t.Helper()
	return e.doWith(context.Background(), "POST", path, e.Key, http.Header{"Idempotency-Key": {key}}, body)
}

// keyedAt sends a keyed POST to the server at base (a replica of the same database).
func (e *env) keyedAt(base, path, key string, body any) response {
	e.t.Helper()
	return e.doWith(context.Background(), "POST", base+path, e.Key, http.Header{"Idempotency-Key": {key}}, body)
}

// charges counts the account's charge rows.
func (e *env) charges() int {
	e.t.Helper()
	rows, err := e.App.Store.Ledger(context.Background(), e.Account, 100000)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Kind == core.LedgerCharge {
			n++
		}
	}
	return n
}

func TestIdempotentReplayAndReuse(t *testing.T) {
	e := start(t, 100)
	body := map[string]any{"prompt": "Retry me safely", "model": "mdl_4_5", "format": "16:9"}
	first := e.keyed("/v2/thumbnail/text", "order-1", body)
	if first.Status != 200 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.Status, first.Header, first.Raw)
	}
	again := e.keyed("/v2/thumbnail/text", "order-1", body)
	if again.Status != 200 || !bytes.Equal(again.Raw, first.Raw) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("X-Request-Id") != first.str("request_id") {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Raw)
	}
	if b := e.balance(e.Account); b != 100-13 || e.charges() != 1 {
		t.Fatalf("balance %d, %d charges after a replay", b, e.charges())
	}
	// The same key with another body, or on another route, is refused; a new key runs.
	other := map[string]any{"prompt": "Another request", "model": "mdl_4_5", "format": "16:9"}
	for _, r := range []response{e.keyed("/v2/thumbnail/text", "order-1", other), e.keyed("/v2/title/text", "order-1", body)} {
		if r.Status != 422 || r.code() != "IDEMPOTENCY_KEY_REUSED" {
			t.Fatalf("reuse: %d %s", r.Status, r.Raw)
		}
	}
	if r := e.keyed("/v2/thumbnail/text", "order-2", other); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("new key: %d %s", r.Status, r.Raw)
	}
	// Keys are the account's own: another account's same key runs anew.
	otherAcct, otherKey := e.newAccount(100)
	r := e.doWith(context.Background(), "POST", "/v2/thumbnail/text", otherKey, http.Header{"Idempotency-Key": {"order-1"}}, body)
	if r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" || e.balance(otherAcct) != 87 {
		t.Fatalf("another account: %d %s", r.Status, r.Raw)
	}
	// A kept refusal is replayed too: the first answer stands for 24 hours.
	poor, poorKey := e.newAccount(0)
	send := func() response {
		return e.doWith(context.Background(), "POST", "/v2/thumbnail/text", poorKey, http.Header{"Idempotency-Key": {"p"}}, body)
	}
	if r := send(); r.Status != 402 {
		t.Fatalf("poor: %d %s", r.Status, r.Raw)
	}
	if _, err := e.App.Store.Grant(context.Background(), poor, 50, "test"); err != nil {
		t.Fatal(err)
	}
	if r := send(); r.Status != 402 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replayed refusal: %d %s", r.Status, r.Raw)
	}
	e.Clock.Advance(core.IdempotencyTTL + time.Minute)
	if r := send(); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after 24 hours the key is new: %d %s", r.Status, r.Raw)
	}
}

func TestIdempotencyVersion1AndHeaderRules(t *testing.T) {
	e := start(t, 100)
	body := map[string]any{"prompt": "Version one"}
	first := e.keyed("/v1/thumbnail", "v1-key", body)
	again := e.keyed("/v1/thumbnail", "v1-key", body)
	if first.Status != 200 || again.Status != 200 || !bytes.Equal(first.Raw, again.Raw) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("v1 replay: %d %s / %d %s", first.Status, first.Raw, again.Status, again.Raw)
	}
	r := e.keyed("/v1/thumbnail", "v1-key", map[string]any{"prompt": "Something else"})
	if errObj, _ := r.Body["error"].(map[string]any); r.Status != 422 || errObj["code"] != "IDEMPOTENCY_KEY_REUSED" || r.Body["request_id"] != nil {
		t.Fatalf("v1 reuse: %d %s", r.Status, r.Raw)
	}
	for _, bad := range []http.Header{
		{"Idempotency-Key": {strings.Repeat("k", 256)}},
		{"Idempotency-Key": {"caf\u00e9"}},
		{"Idempotency-Key": {""}},
		{"Idempotency-Key": {"a", "b"}},
	} {
		r := e.doWith(context.Background(), "POST", "/v2/thumbnail/text", e.Key, bad, map[string]any{"prompt": "x", "model": "mdl_2", "format": "1:1"})
		if r.Status != 400 || r.code() != "VALIDATION_ERROR" || !strings.Contains(string(r.Raw), `"field":"Idempotency-Key"`) {
			t.Errorf("%q: %d %s", bad, r.Status, r.Raw)
		}
	}
	if e.balance(e.Account) != 100-16 {
		t.Fatalf("balance %d", e.balance(e.Account))
	}
}

// TestIdempotencyWhileRunning: repeats of a request that has not answered yet are 409;
// once it has, they get its answer. Answers that charged nothing and may differ on a retry
// (429, 5xx) are not kept.
func TestIdempotencyWhileRunning(t *testing.T) {
	e := start(t, 100)
	url, release, started := blocker(e, "/held.jpg")
	defer release()
	body := map[string]any{"image_url": url, "model": "mdl_3", "format": "1:1"}
	done := make(chan response, 1)
	go func() { done <- e.keyed("/v2/thumbnail/image", "held", body) }()
	<-started
	for range 9 {
		if r := e.keyed("/v2/thumbnail/image", "held", body); r.Status != 409 || r.code() != "CONFLICT" {
			t.Fatalf("repeat while running: %d %s", r.Status, r.Raw)
		}
	}
	release()
	first := <-done
	if r := e.keyed("/v2/thumbnail/image", "held", body); first.Status != 200 || !bytes.Equal(r.Raw, first.Raw) {
		t.Fatalf("after: %d %s / %d %s", first.Status, first.Raw, r.Status, r.Raw)
	}
	if e.charges() != 1 || e.balance(e.Account) != 100-16 {
		t.Fatalf("%d charges, balance %d", e.charges(), e.balance(e.Account))
	}

	// A 429 is not kept: once a slot is free the same key runs.
	e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 1; return nil })
	url2, release2, started2 := blocker(e, "/busy.jpg")
	go func() {
		done <- e.post("/v2/thumbnail/image", map[string]any{"image_url": url2, "model": "mdl_3", "format": "1:1"})
	}()
	<-started2
	text := map[string]any{"prompt": "After the rush", "model": "mdl_3", "format": "1:1"}
	if r := e.keyed("/v2/thumbnail/text", "busy", text); r.Status != 429 {
		t.Fatalf("busy: %d %s", r.Status, r.Raw)
	}
	release2()
	<-done
	if r := e.keyed("/v2/thumbnail/text", "busy", text); r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("after the rush: %d %s", r.Status, r.Raw)
	}
}

func TestIdempotencyServerErrorsNotKept(t *testing.T) {
	e := start(t, 100, func(c *app.Config) { c.Timeouts.Generation = time.Nanosecond })
	body := map[string]any{"prompt": "Too slow", "model": "mdl_3", "format": "1:1"}
	first := e.keyed("/v2/thumbnail/text", "slow", body)
	again := e.keyed("/v2/thumbnail/text", "slow", body)
	if first.Status != 504 || again.Status != 504 || again.Header.Get("Idempotent-Replayed") != "" ||
		again.str("request_id") == first.str("request_id") {
		t.Fatalf("504s: %s / %s", first.Raw, again.Raw)
	}
}

// idempotencyBurst sends n repeats of one keyed request at once, spread over urls, and
// checks that one ran, every other one was a 409 or a replay, and one charge was made.
func idempotencyBurst(t *testing.T, e *env, urls []string, n int) {
	t.Helper()
	e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 100; return nil })
	body := map[string]any{"prompt": "Ten at once", "model": "mdl_4_5", "format": "16:9"}
	var wg sync.WaitGroup
	results := make(chan response, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); results <- e.keyedAt(urls[i%len(urls)], "/v2/thumbnail/text", "burst", body) }()
	}
	wg.Wait()
	close(results)
	ran, conflicts, replays := 0, 0, 0
	for r := range results {
		switch {
		case r.Status == 200 && r.Header.Get("Idempotent-Replayed") == "":
			ran++
		case r.Status == 200:
			replays++
		case r.Status == 409 && r.code() == "CONFLICT":
			conflicts++
		default:
			t.Errorf("unexpected %d %s", r.Status, r.Raw)
		}
	}
	if ran != 1 || ran+conflicts+replays != n {
		t.Fatalf("%d ran, %d conflicts, %d replays", ran, conflicts, replays)
	}
	if e.charges() != 1 || e.balance(e.Account) != 100-13 {
		t.Fatalf("%d charges, balance %d", e.charges(), e.balance(e.Account))
	}
	assertLedgerMatches(t, e)
}

func TestIdempotencyConcurrentRepeats(t *testing.T) {
	e := start(t, 100)
	idempotencyBurst(t, e, []string{e.URL}, 10)
}

// TestIdempotencyAcrossReplicas: two servers on one PostgreSQL database; the database
// decides which of ten simultaneous repeats runs.
func TestIdempotencyAcrossReplicas(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	onPG := func(c *app.Config) { c.Database = dsn }
	e := start(t, 100, onPG)
	cfg := app.Defaults()
	cfg.DataDir, cfg.Database, cfg.MaintenanceTTL = t.TempDir(), dsn, 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	second := apptest.StartApp(t, cfg)
	idempotencyBurst(t, e, []string{e.URL, second.URL()}, 10)
}
