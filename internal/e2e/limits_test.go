package e2e

import (
	"context"
	"image"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/api"
	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// noise is an image that does not compress: its JPEG is large for its size.
func noise(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	return img
}

// stalled serves an image that is answered only when release is closed, so that requests
// stay in flight as long as a test wants.
func (e *env) stalled(path string) (url string, release func()) {
	gate := make(chan struct{})
	img := jpegBytes(e.t, testImage(64, 48, 3))
	url = e.serve(path, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(img)
	})
	var once sync.Once
	return url, func() { once.Do(func() { close(gate) }) }
}

// inFlight starts a thumbnail request with key that stays in flight until release, and
// returns a channel of its status.
func (e *env) inFlight(key, url string) <-chan int {
	done := make(chan int, 1)
	go func() {
		r := e.do("POST", "/v2/thumbnail/image", key, map[string]any{"model": "mdl_3", "format": "1:1", "image_url": url})
		done <- r.Status
	}()
	return done
}

// waitInFlight waits until the server counts n API requests in flight.
func (e *env) waitInFlight(n float64) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(e.metrics(), "thumbforge_http_in_flight "+formatFloat(n)) {
		if time.Now().After(deadline) {
			e.t.Fatalf("never %v requests in flight", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) metrics() string {
	r := e.do("GET", "/metrics", "", nil)
	return string(r.Raw)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestGlobalInFlightCap: beyond --max-inflight, whatever the key, 429 with Retry-After in
// both versions; the cap frees as requests end.
func TestGlobalInFlightCap(t *testing.T) {
	e := start(t, 1000, func(c *app.Config) { c.MaxInFlight = 2 })
	_, key2 := e.newAccount(1000)
	_, key3 := e.newAccount(1000)
	url, release := e.stalled("/slow.jpg")
	defer release()
	a, b := e.inFlight(e.Key, url), e.inFlight(key2, url)
	e.waitInFlight(2)
	r := e.do("POST", "/v2/thumbnail/text", key3, map[string]any{"prompt": "cats", "model": "mdl_3", "format": "1:1"})
	if r.Status != 429 || r.code() != "TOO_MANY_REQUESTS" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("over the cap: %d %s", r.Status, r.Raw)
	}
	r = e.do("POST", "/v1/thumbnail", key3, map[string]any{"prompt": "cats"})
	if r.Status != 429 || r.code() != "CONCURRENT_LIMIT_EXCEEDED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("v1 over the cap: %d %s", r.Status, r.Raw)
	}
	release()
	if sa, sb := <-a, <-b; sa != 200 || sb != 200 {
		t.Fatalf("held requests: %d %d", sa, sb)
	}
	if r := e.do("POST", "/v2/thumbnail/text", key3, map[string]any{"prompt": "cats", "model": "mdl_3", "format": "1:1"}); r.Status != 200 {
		t.Fatalf("after the cap freed: %d %s", r.Status, r.Raw)
	}
}

// TestLimitScopes: per key, two keys of one account each have the account's limit; per
// account, they share it.
func TestLimitScopes(t *testing.T) {
	for _, scope := range []string{api.LimitPerKey, api.LimitPerAccount} {
		t.Run(scope, func(t *testing.T) {
			e := start(t, 1000, func(c *app.Config) { c.LimitScope = scope })
			_, err := e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error {
				a.Concurrency = 1
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			second, _, err := app.CreateKey(context.Background(), e.App.Store, e.Account)
			if err != nil {
				t.Fatal(err)
			}
			url, release := e.stalled("/slow.jpg")
			defer release()
			held := e.inFlight(e.Key, url)
			e.waitInFlight(1)
			r := e.do("POST", "/v2/thumbnail/text", second, map[string]any{"prompt": "cats", "model": "mdl_3", "format": "1:1"})
			want := 200
			if scope == api.LimitPerAccount {
				want = 429
			}
			if r.Status != want {
				t.Fatalf("second key: %d %s, want %d", r.Status, r.Raw, want)
			}
			release()
			<-held
		})
	}
}

// TestBodyWaitsForMemory: a body that cannot get its share of the memory budget within the
// deadline is 429 with Retry-After and charges nothing; once memory frees it goes through.
func TestBodyWaitsForMemory(t *testing.T) {
	e := start(t, 1000, func(c *app.Config) {
		c.MemoryBudget = 256 << 20
		c.Timeouts.Generation = 300 * time.Millisecond
	})
	var held []interface{ Release() }
	for range 4 {
		r, err := e.App.Budget.Reserve(context.Background(), e.App.Budget.Share())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, r)
	}
	before := e.balance(e.Account)
	body := map[string]any{"model": "mdl_3", "format": "1:1", "image_base64": dataURL(t, noise(900, 700))}
	r := e.post("/v2/thumbnail/image", body)
	if r.Status != 429 || r.code() != "TOO_MANY_REQUESTS" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("no memory: %d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != before {
		t.Fatalf("charged %d while refused", before-got)
	}
	for _, h := range held {
		h.Release()
	}
	if r := e.post("/v2/thumbnail/image", body); r.Status != 200 {
		t.Fatalf("with memory: %d %s", r.Status, r.Raw)
	}
	if e.App.Budget.InUse() != 0 {
		t.Fatalf("%d bytes still reserved after the requests ended", e.App.Budget.InUse())
	}
}
