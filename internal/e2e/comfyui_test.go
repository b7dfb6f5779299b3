package e2e

import (
	"context"
	"encoding/json"
	"image"
	"log/slog"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/comfyfake"
)

// withEngine configures the app's engine (health pings every 50 ms), logging into log.
func withEngine(log *syncBuffer, cfg engines.Config) option {
	return func(c *app.Config) {
		cfg.HealthInterval = 50 * time.Millisecond
		c.Engine = cfg
		if log != nil {
			c.Logger = slog.New(slog.NewTextHandler(log, nil))
		}
	}
}

// withComfyUI points the app at ComfyUI fakes, logging into log.
func withComfyUI(log *syncBuffer, urls ...string) option {
	return withEngine(log, engines.Config{Kind: "comfyui", URLs: urls, Key: engineKey})
}

// everyFormat asks a text thumbnail of model in each format and checks its exact size;
// check runs after each.
func everyFormat(t *testing.T, e *env, log *syncBuffer, model string, check func()) {
	t.Helper()
	sizes := map[string]image.Point{"16:9": {1280, 720}, "9:16": {720, 1280}, "1:1": {1080, 1080}}
	for format, size := range sizes {
		r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Best budget travel tips for Japan", "model": model, "format": format})
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", format, r.Status, r.Raw)
		}
		if got := e.decodeOutput(r.str("output")).Bounds().Size(); got != size {
			t.Fatalf("%s: %v, want %v", format, got, size)
		}
		check()
		noKeyLeak(t, log, r)
	}
}

// comfyFake starts a ComfyUI fake that requires engineKey as a Bearer token.
func comfyFake(t *testing.T) (*comfyfake.Fake, string) {
	f, srv := comfyfake.Serve(t, comfyfake.Config{Token: engineKey})
	return f, srv.URL
}

// graphText is every string input of the last graph the fake accepted, joined.
func graphText(t *testing.T, f *comfyfake.Fake) string {
	t.Helper()
	p := f.Prompts()
	if len(p) == 0 {
		t.Fatal("no prompt reached ComfyUI")
	}
	var g map[string]struct {
		Inputs map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal(p[len(p)-1].Graph, &g); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range g {
		for _, v := range n.Inputs {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n")
}

func TestComfyUIThumbnailsSizesAndCharges(t *testing.T) {
	log := &syncBuffer{}
	fake, url := comfyFake(t)
	e := start(t, 1000, withComfyUI(log, url))
	everyFormat(t, e, log, "mdl_4_5", func() {
		if !strings.Contains(graphText(t, fake), "Best budget travel tips for Japan") {
			t.Fatal("the prompt did not reach the graph verbatim")
		}
	})
	ref := e.serveImage("/ref.jpg", testImage(800, 600, 40))
	r := e.post("/v2/thumbnail/image", map[string]any{"image_url": ref, "model": "mdl_2", "format": "9:16", "image_weight": "high"})
	if r.Status != 200 {
		t.Fatalf("image thumbnail: %d %s", r.Status, r.Raw)
	}
	if !strings.Contains(graphText(t, fake), "thumbforge/tf-") {
		t.Fatal("the reference was not uploaded and bound")
	}
	in := testImage(1280, 720, 90)
	mask := image.NewGray(in.Rect)
	for i := range mask.Pix[:len(mask.Pix)/2] {
		mask.Pix[i] = 255
	}
	r = e.post("/v1/edit", map[string]any{"image_url": e.serveImage("/in.jpg", in), "mask_url": e.serveImage("/mask.jpg", mask), "prompt": "turn the sky into a sunset"})
	if r.Status != 200 {
		t.Fatalf("edit: %d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != int64(1000-3*13-20-12) {
		t.Fatalf("balance %d", got)
	}
	for _, rq := range fake.Requests() {
		if rq.Header.Get("Origin") != "" || rq.Header.Get("Authorization") != "Bearer "+engineKey {
			t.Fatalf("%s %s: Origin %q, Authorization set: %v", rq.Method, rq.Path, rq.Header.Get("Origin"), rq.Header.Get("Authorization") != "")
		}
	}
}

// TestComfyUITimeoutInterrupts: past the generation deadline the request is 504, the
// prompt is interrupted and dropped from the queue, nothing is charged.
func TestComfyUITimeoutInterrupts(t *testing.T) {
	fake, url := comfyFake(t)
	e := start(t, 1000, withComfyUI(nil, url), func(c *app.Config) { c.Timeouts.Generation = 500 * time.Millisecond })
	fake.Arm(comfyfake.Hang, 1)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Too slow", "model": "mdl_3", "format": "16:9"})
	if r.Status != 504 || r.code() != "GENERATION_TIMEOUT" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	id := fake.Prompts()[0].ID
	waitUntil(t, "the interrupt", func() bool {
		in := fake.Interrupts()
		return len(in) == 1 && in[0].PromptID == id && in[0].Hit
	})
	if d := fake.Deleted(); len(d) != 1 || d[0] != id {
		t.Fatalf("queue delete %v, want %s", d, id)
	}
	waitUntil(t, "the queue to empty", func() bool { r, p := fake.Queue(); return r == 0 && p == 0 })
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("charged for timed-out work: balance %d", got)
	}
}

// TestComfyUIClientGoneInterrupts: a client that goes away cancels the request's
// context, and that interrupts ComfyUI's prompt.
func TestComfyUIClientGoneInterrupts(t *testing.T) {
	fake, url := comfyFake(t)
	e := start(t, 1000, withComfyUI(nil, url))
	fake.Arm(comfyfake.Hang, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan response, 1)
	go func() {
		done <- e.doCtx(ctx, "POST", "/v2/thumbnail/text", e.Key, map[string]any{"prompt": "Leaving early", "model": "mdl_3", "format": "16:9"})
	}()
	waitUntil(t, "the prompt to run", func() bool { r, _ := fake.Queue(); return r == 1 })
	cancel()
	<-done
	waitUntil(t, "the interrupt", func() bool { in := fake.Interrupts(); return len(in) == 1 && in[0].Hit })
	waitUntil(t, "the hold to be released", func() bool { return e.balance(e.Account) == 1000 })
}

// TestComfyUIExecutionErrorIsFailed: an execution error is GENERATION_FAILED, its text in
// the log only, nothing charged.
func TestComfyUIExecutionErrorIsFailed(t *testing.T) {
	log := &syncBuffer{}
	fake, url := comfyFake(t)
	e := start(t, 1000, withComfyUI(log, url))
	fake.Arm(comfyfake.Fail, 1)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Out of memory", "model": "mdl_3", "format": "1:1"})
	if r.Status != 500 || r.code() != "GENERATION_FAILED" || strings.Contains(string(r.Raw), "CUDA") {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("charged for failed work: balance %d", got)
	}
	if !strings.Contains(log.String(), "injected by the fake") {
		t.Error("ComfyUI's error text is not in the log")
	}
	noKeyLeak(t, log, r)
}

// TestComfyUIPoolWithOneDown: with one of two ComfyUIs down, every request is served by
// the other and /readyz shows which is down.
func TestComfyUIPoolWithOneDown(t *testing.T) {
	good, goodURL := comfyFake(t)
	_, down := comfyfake.Serve(t, comfyfake.Config{Token: engineKey})
	downURL := down.URL
	down.Close() // connection refused from now on
	e := start(t, 1000, withComfyUI(nil, downURL, goodURL))
	for i := range 3 {
		r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Pool request", "model": "mdl_3", "format": "1:1"})
		if r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if n := len(good.Prompts()); n != 3 {
		t.Fatalf("the live backend ran %d of 3", n)
	}
	rz := e.do("GET", "/readyz", "", nil)
	var body struct {
		Engine struct{ Backends []engines.BackendHealth }
	}
	if err := json.Unmarshal(rz.Raw, &body); err != nil || rz.Status != 200 || len(body.Engine.Backends) != 2 {
		t.Fatalf("readyz: %d %s", rz.Status, rz.Raw)
	}
	if b := body.Engine.Backends; b[0].Healthy || !b[1].Healthy {
		t.Fatalf("readyz backends: %+v", b)
	}
	if got := e.balance(e.Account); got != 1000-3*16 {
		t.Fatalf("balance %d", got)
	}
}
