package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

func TestTextThumbnailEachFormat(t *testing.T) {
	e := start(t, 1000)
	sizes := map[string][2]int{"16:9": {1280, 720}, "9:16": {720, 1280}, "1:1": {1080, 1080}}
	for format, size := range sizes {
		r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Best budget travel tips for Japan", "model": "mdl_4_5", "format": format})
		if r.Status != 200 {
			t.Fatalf("%s: status %d: %s", format, r.Status, r.Raw)
		}
		if r.str("request_id") == "" || r.str("request_id") != r.Header.Get("X-Request-Id") {
			t.Fatalf("request_id %q vs header %q", r.str("request_id"), r.Header.Get("X-Request-Id"))
		}
		img := e.decodeOutput(r.str("output"))
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Fatalf("%s: size %v, want %v", format, b.Size(), size)
		}
	}
	if got, want := e.balance(e.Account), int64(1000-3*13); got != want {
		t.Fatalf("balance %d, want %d", got, want)
	}
}

func TestThumbnailDeterministic(t *testing.T) {
	e := start(t, 1000)
	body := map[string]any{"prompt": "Ten minute pasta dinner", "model": "mdl_3", "format": "1:1"}
	a := e.post("/v2/thumbnail/text", body)
	b := e.post("/v2/thumbnail/text", body)
	if a.Status != 200 || b.Status != 200 {
		t.Fatalf("statuses %d %d", a.Status, b.Status)
	}
	_, ba, _ := e.fetch(a.str("output"))
	_, bb, _ := e.fetch(b.str("output"))
	if string(ba) != string(bb) {
		t.Fatal("the same request gave different bytes")
	}
}

func TestImageThumbnailFromURLAndData(t *testing.T) {
	e := start(t, 1000)
	src := testImage(800, 600, 30)
	url := e.serveImage("/ref.jpg", src)
	for name, body := range map[string]map[string]any{
		"url":    {"image_url": url, "model": "mdl_2", "format": "9:16", "image_weight": "high"},
		"base64": {"image_base64": dataURL(t, src), "model": "mdl_4", "format": "16:9", "prompt": "Sunny day", "support_image_base64": dataURL(t, testImage(200, 200, 200))},
	} {
		r := e.post("/v2/thumbnail/image", body)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
		}
		e.decodeOutput(r.str("output"))
	}
}

func TestAuthOrderAndCodes(t *testing.T) {
	e := start(t, 100)
	ctx := context.Background()
	st := e.App.Store
	mk := func(fn func(acct, key string)) string {
		id, key := e.newAccount(10)
		fn(id.String(), key)
		return key
	}
	keyID := func(key string) *core.APIKey {
		k, _, err := st.KeyByHash(ctx, core.HashKey(key))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	deleted := mk(func(_, key string) { st.SetKeyStatus(ctx, keyID(key).ID, core.KeyDeleted) })
	inactive := mk(func(_, key string) { st.SetKeyStatus(ctx, keyID(key).ID, core.KeyInactive) })
	suspended := mk(func(_, key string) {
		st.UpdateAccount(ctx, keyID(key).AccountID, func(a *core.Account) error { a.Suspended = true; return nil })
	})
	noAccess := mk(func(_, key string) {
		st.UpdateAccount(ctx, keyID(key).AccountID, func(a *core.Account) error { a.APIAccess = false; return nil })
	})
	// A suspended account whose key is also inactive reports the key first (DESIGN order).
	both := mk(func(_, key string) {
		st.SetKeyStatus(ctx, keyID(key).ID, core.KeyInactive)
		st.UpdateAccount(ctx, keyID(key).AccountID, func(a *core.Account) error { a.Suspended = true; return nil })
	})
	unknown, _ := core.NewKeySecret()
	cases := []struct {
		name, key, code string
		status          int
	}{
		{"missing", "", "MISSING_API_KEY", 401},
		{"format no prefix", "abc_" + strings.Repeat("a", 40), "INVALID_API_KEY_FORMAT", 401},
		{"format short", "mdl_abc", "INVALID_API_KEY_FORMAT", 401},
		{"format symbols", "mdl_" + strings.Repeat("a", 39) + "!", "INVALID_API_KEY_FORMAT", 401},
		{"unknown", unknown, "INVALID_API_KEY", 401},
		{"deleted", deleted, "API_KEY_DELETED", 401},
		{"inactive", inactive, "API_KEY_INACTIVE", 401},
		{"suspended", suspended, "ACCOUNT_SUSPENDED", 403},
		{"no api access", noAccess, "API_ACCESS_NOT_ENABLED", 403},
		{"inactive before suspended", both, "API_KEY_INACTIVE", 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// An invalid body too: auth must run before validation.
			r := e.do("POST", "/v2/thumbnail/text", c.key, map[string]any{"bogus": 1})
			if r.Status != c.status || r.code() != c.code {
				t.Fatalf("v2: %d %s, want %d %s (%s)", r.Status, r.code(), c.status, c.code, r.Raw)
			}
			if r.str("request_id") == "" {
				t.Fatal("v2 error without request_id")
			}
			r = e.do("POST", "/v1/thumbnail", c.key, map[string]any{"prompt": "x"})
			if r.Status != 401 || r.code() != "INVALID_AUTH_HEADER" {
				t.Fatalf("v1: %d %s (%s)", r.Status, r.code(), r.Raw)
			}
		})
	}
}

func TestMaintenanceSwitch(t *testing.T) {
	e := start(t, 100)
	if err := e.App.Store.SetMaintenance(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1"})
	if r.Status != 503 || r.code() != "SERVICE_UNDER_MAINTENANCE" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("v2: %d %s retry-after %q", r.Status, r.code(), r.Header.Get("Retry-After"))
	}
	r = e.post("/v1/thumbnail", map[string]any{"prompt": "x"})
	if r.Status != 503 || r.code() != "MAINTENANCE_ACTIVE" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("v1: %d %s", r.Status, r.code())
	}
	if r := e.do("GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("healthz during maintenance: %d", r.Status)
	}
	e.App.Store.SetMaintenance(context.Background(), false)
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1"}); r.Status != 200 {
		t.Fatalf("after maintenance: %d %s", r.Status, r.Raw)
	}
}

// blocker serves an image only once released, so requests stay in flight.
func blocker(e *env, path string) (url string, release func(), started <-chan struct{}) {
	gate := make(chan struct{})
	ch := make(chan struct{}, 100)
	data := jpegBytes(e.t, testImage(64, 64, 1))
	url = e.serve(path, func(w http.ResponseWriter, r *http.Request) {
		ch <- struct{}{}
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(data)
	})
	var once sync.Once
	return url, func() { once.Do(func() { close(gate) }) }, ch
}

func TestInFlightLimit(t *testing.T) {
	e := start(t, 1000)
	url, release, started := blocker(e, "/slow.jpg")
	defer release()
	body := map[string]any{"image_url": url, "model": "mdl_3", "format": "1:1"}
	var wg sync.WaitGroup
	statuses := make(chan int, 10)
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); statuses <- e.post("/v2/thumbnail/image", body).Status }()
	}
	for range 10 {
		select {
		case <-started:
		case <-time.After(30 * time.Second):
			t.Fatal("requests did not reach the image server")
		}
	}
	r := e.post("/v2/thumbnail/image", body)
	if r.Status != 429 || r.code() != "TOO_MANY_REQUESTS" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("11th: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v1/thumbnail", map[string]any{"prompt": "x"})
	if r.Status != 429 || r.code() != "CONCURRENT_LIMIT_EXCEEDED" {
		t.Fatalf("v1 11th: %d %s", r.Status, r.Raw)
	}
	release()
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Fatalf("a held request ended %d", s)
		}
	}
}

func TestCreditsRace(t *testing.T) {
	e := start(t, 13*10)
	e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 100; return nil })
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Race number " + string(rune('a'+i%26)), "model": "mdl_4_5", "format": "16:9"})
			mu.Lock()
			counts[r.Status]++
			mu.Unlock()
			if r.Status != 200 && r.code() != "INSUFFICIENT_CREDITS" {
				t.Errorf("unexpected %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	if counts[200] != 10 || counts[402] != 40 {
		t.Fatalf("statuses %v, want 10 x 200 and 40 x 402", counts)
	}
	if b := e.balance(e.Account); b != 0 {
		t.Fatalf("balance %d, want 0", b)
	}
	assertLedgerMatches(t, e)
}

func assertLedgerMatches(t *testing.T, e *env) {
	t.Helper()
	rows, err := e.App.Store.Ledger(context.Background(), e.Account, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range rows {
		sum += r.Delta
	}
	if b := e.balance(e.Account); sum != b {
		t.Fatalf("ledger sums to %d, balance is %d", sum, b)
	}
}

func TestOutputLinkExpiryTamperAndSweep(t *testing.T) {
	e := start(t, 100)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Link test", "model": "mdl_3", "format": "1:1"})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	link := r.str("output")
	if s, _, _ := e.fetch(link); s != 200 {
		t.Fatalf("fresh link: %d", s)
	}
	tampered := strings.Replace(link, "sig=", "sig=0", 1)
	if s, _, _ := e.fetch(tampered); s != 403 {
		t.Fatalf("tampered link: %d, want 403", s)
	}
	other := strings.Replace(link, ".jpg", "x.jpg", 1)
	if s, _, _ := e.fetch(other); s != 403 {
		t.Fatalf("link for another key: %d, want 403", s)
	}
	e.Clock.Advance(23 * time.Hour)
	if s, _, _ := e.fetch(link); s != 200 {
		t.Fatalf("23 h old link: %d", s)
	}
	e.Clock.Advance(2 * time.Hour)
	if s, _, _ := e.fetch(link); s != 410 {
		t.Fatalf("expired link: %d, want 410", s)
	}
	if err := e.App.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys, err := e.App.Store.ExpiredOutputs(context.Background(), e.Clock.Now(), 10)
	if err != nil || len(keys) != 0 {
		t.Fatalf("after sweep: %v %v", keys, err)
	}
	key := link[strings.Index(link, "/files/")+len("/files/") : strings.Index(link, "?")]
	if _, err := e.App.Blobs.Get(context.Background(), key); err == nil {
		t.Fatal("the swept output still exists")
	}
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := start(t, 10)
	cases := []struct {
		method, path, code string
		status             int
		v1                 bool
	}{
		{"POST", "/v2/nope", "NOT_FOUND", 404, false},
		{"GET", "/v2/thumbnail/text", "NOT_FOUND", 404, false},
		{"GET", "/v1/nope", "NOT_FOUND", 404, true},
		{"DELETE", "/v1/thumbnail", "NOT_FOUND", 404, true},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, e.Key, nil)
		if r.Status != c.status || r.code() != c.code {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.Status, r.Raw)
		}
		_, hasRID := r.Body["request_id"]
		if c.v1 == hasRID {
			t.Fatalf("%s %s: wrong body shape %s", c.method, c.path, r.Raw)
		}
		if r.Header.Get("X-Request-Id") == "" {
			t.Fatal("no X-Request-Id")
		}
	}
	allow := map[string]string{
		"/v2/thumbnail/text": "POST", "/v1/thumbnail": "POST", "/v2/custom/style": "GET, POST, PATCH, DELETE", // {id} also matches "style"
		"/v2/custom/0190a000-0000-7000-8000-000000000000": "GET, PATCH, DELETE", "/v2/nope": "",
	}
	for path, want := range allow {
		if r := e.do("PUT", path, e.Key, nil); r.Status != 404 || r.Header.Get("Allow") != want {
			t.Errorf("PUT %s: %d, Allow %q, want %q", path, r.Status, r.Header.Get("Allow"), want)
		}
	}
}

func TestValidationReportsEveryProblem(t *testing.T) {
	e := start(t, 100)
	r := e.post("/v2/thumbnail/image", map[string]any{
		"model": "mdl_9", "format": "4:3", "prompt": "see http://x", "image_weight": "max", "extra": true,
	})
	if r.Status != 400 || r.code() != "VALIDATION_ERROR" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	details := r.Body["error"].(map[string]any)["details"].([]any)
	fields := map[string]bool{}
	for _, d := range details {
		fields[d.(map[string]any)["field"].(string)] = true
	}
	for _, f := range []string{"model", "format", "prompt", "image_weight", "extra", "image_url"} {
		if !fields[f] {
			t.Errorf("no detail for %s in %s", f, r.Raw)
		}
	}
	if e.balance(e.Account) != 100 {
		t.Fatal("a rejected request moved credits")
	}
	r = e.post("/v1/thumbnail", map[string]any{"format": "4:3"})
	if r.Status != 400 || r.code() != "BAD_REQUEST" || !strings.Contains(r.Raw2(), "prompt") {
		t.Fatalf("v1: %d %s", r.Status, r.Raw)
	}
}

func (r response) Raw2() string { return string(r.Raw) }

func TestInsufficientCreditsAndSmartBalance(t *testing.T) {
	e := start(t, 5)
	body := map[string]any{"prompt": "Smart balance", "model": "mdl_4_5", "format": "1:1"}
	if r := e.post("/v2/thumbnail/text", body); r.Status != 402 || r.code() != "INSUFFICIENT_CREDITS" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if r := e.post("/v1/thumbnail", map[string]any{"prompt": "x"}); r.Status != 402 || r.code() != "INSUFFICIENT_BALANCE" {
		t.Fatalf("v1: %d %s", r.Status, r.Raw)
	}
	ctx := context.Background()
	e.App.Store.UpdateAccount(ctx, e.Account, func(a *core.Account) error { a.TopUpAmount = 50; return nil })
	if r := e.post("/v2/thumbnail/text", body); r.Status != 200 {
		t.Fatalf("with top-up: %d %s", r.Status, r.Raw)
	}
	if b := e.balance(e.Account); b != 5+50-13 {
		t.Fatalf("balance %d after top-up", b)
	}
	// Spend down, then the open (unpaid) invoice blocks another top-up.
	for e.balance(e.Account) >= 13 {
		if r := e.post("/v2/thumbnail/text", body); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	if r := e.post("/v2/thumbnail/text", body); r.Status != 402 || r.code() != "SMART_BALANCE_PAYMENT_FAILED" {
		t.Fatalf("open invoice: %d %s", r.Status, r.Raw)
	}
	assertLedgerMatches(t, e)
}

func TestCancelledRequestChargesNothing(t *testing.T) {
	e := start(t, 100)
	url, release, started := blocker(e, "/hang.jpg")
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan response)
	go func() {
		done <- e.doCtx(ctx, "POST", "/v2/thumbnail/image", e.Key, map[string]any{"image_url": url, "model": "mdl_3", "format": "1:1"})
	}()
	<-started
	cancel()
	<-done
	deadline := time.Now().Add(10 * time.Second)
	for e.balance(e.Account) != 100 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b := e.balance(e.Account); b != 100 {
		t.Fatalf("balance %d after a cancelled request", b)
	}
	assertLedgerMatches(t, e)
}

func TestGenerationTimeoutChargesNothing(t *testing.T) {
	e := start(t, 100, func(c *app.Config) { c.Timeouts.Generation = time.Nanosecond })
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Timeout", "model": "mdl_3", "format": "1:1"})
	if r.Status != 504 || r.code() != "GENERATION_TIMEOUT" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100 {
		t.Fatal("charged for a timeout")
	}
}

func TestPrivateAddressesRefused(t *testing.T) {
	e := start(t, 100, func(c *app.Config) { c.AllowPrivateFetch = false })
	url := e.serveImage("/private.jpg", testImage(100, 100, 9))
	r := e.post("/v2/thumbnail/image", map[string]any{"image_url": url, "model": "mdl_3", "format": "1:1"})
	if r.Status != 400 || r.code() != "INVALID_IMAGE" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100 {
		t.Fatal("charged for a refused fetch")
	}
}

func TestImageTooLarge(t *testing.T) {
	e := start(t, 100)
	big := "data:image/png;base64," + strings.Repeat("A", 14<<20)
	r := e.post("/v2/thumbnail/image", map[string]any{"image_base64": big, "model": "mdl_3", "format": "1:1"})
	if r.Status != 413 || r.code() != "IMAGE_TOO_LARGE" {
		t.Fatalf("%d %.300s", r.Status, r.Raw)
	}
	r = e.post("/v2/thumbnail/image", map[string]any{"image_base64": "data:image/png;base64,AAAAAAAA", "model": "mdl_3", "format": "1:1"})
	if r.Status != 400 || r.code() != "INVALID_IMAGE" {
		t.Fatalf("garbage: %d %s", r.Status, r.Raw)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	e := start(t, 100)
	e.post("/v2/thumbnail/text", map[string]any{"prompt": "Metrics", "model": "mdl_3", "format": "1:1"})
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := e.do("GET", p, "", nil); r.Status != 200 {
			t.Fatalf("%s: %d", p, r.Status)
		}
	}
	r := e.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`thumbforge_http_requests_total{route="POST /v2/thumbnail/text",status="200"} 1`,
		`thumbforge_credits_charged_total{operation="thumbnail.mdl_3"} 16`,
		"thumbforge_http_request_duration_seconds_bucket", "thumbforge_http_in_flight",
	} {
		if !strings.Contains(string(r.Raw), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
