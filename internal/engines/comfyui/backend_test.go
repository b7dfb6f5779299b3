package comfyui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/comfyfake"
	"thumbforge/internal/engines/enginetest/fakekit"
)

func testBackend(t *testing.T, cfg comfyfake.Config) (*backend, *comfyfake.Fake) {
	t.Helper()
	f, srv := comfyfake.Serve(t, cfg)
	u, _ := url.Parse(srv.URL)
	h := http.Header{}
	if cfg.Token != "" {
		h.Set("Authorization", "Bearer "+cfg.Token)
	}
	return &backend{base: u, header: h, hc: &http.Client{Timeout: 30 * time.Second}, poll: 20 * time.Millisecond,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}, f
}

func bound(t *testing.T, kind Purpose, values map[string]any) json.RawMessage {
	t.Helper()
	ws, err := LoadWorkflows("")
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]any{"prompt": "a lighthouse at dusk", "negative_prompt": "text, watermark", "seed": 7,
		"width": 1344, "height": 768, "steps": 3, "checkpoint": "sd_xl_base_1.0.safetensors", "denoise": 0.55}
	for k, v := range values {
		base[k] = v
	}
	g, err := ws[kind].Bind(base)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunTextWorkflow: the embedded txt2img graph passes ComfyUI's validation and comes
// back as an image of the latent size, with progress from the socket.
func TestRunTextWorkflow(t *testing.T) {
	// steps that take a moment, so the socket's events arrive while the prompt runs
	b, f := testBackend(t, comfyfake.Config{Token: "k", StepDelay: 30 * time.Millisecond})
	var mu sync.Mutex
	var seen []int
	ctx := core.WithProgress(context.Background(), func(p int) { mu.Lock(); seen = append(seen, p); mu.Unlock() })
	data, err := b.run(ctx, bound(t, ForText, nil))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || img.Width != 1344 || img.Height != 768 {
		t.Errorf("picture %+v %v", img, err)
	}
	p := f.Prompts()
	if len(p) != 1 || p[0].ClientID == "" {
		t.Fatalf("prompts %+v", p)
	}
	for _, r := range f.Requests() {
		if r.Header.Get("Origin") != "" || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("%s %s: Origin %q Authorization %q", r.Method, r.Path, r.Header.Get("Origin"), r.Header.Get("Authorization"))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] <= 0 || seen[len(seen)-1] > 100 {
		t.Errorf("progress %v, want sampler steps as 1..100", seen)
	}
}

// TestCancelInterruptsAndDeletes: a cancelled request interrupts its running prompt and
// removes it from the queue.
func TestCancelInterruptsAndDeletes(t *testing.T) {
	b, f := testBackend(t, comfyfake.Config{})
	f.Arm(comfyfake.Hang, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := b.run(ctx, bound(t, ForText, nil)); done <- err }()
	for f.Count("POST", "/prompt") == 0 || func() bool { r, _ := f.Queue(); return r == 0 }() {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	id := f.Prompts()[0].ID
	in := f.Interrupts()
	if len(in) != 1 || in[0].PromptID != id || !in[0].Hit {
		t.Errorf("interrupts %+v, want one hitting %s", in, id)
	}
	if d := f.Deleted(); len(d) != 1 || d[0] != id {
		t.Errorf("deleted %v", d)
	}
}

// TestBackendFailures: an execution error, a vanished prompt and a refused graph are
// failures; a lost answer and a 429 are survived.
func TestBackendFailures(t *testing.T) {
	b, f := testBackend(t, comfyfake.Config{})
	var fl *engines.Error

	f.Arm(comfyfake.Fail, 1)
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); !errors.As(err, &fl) {
		t.Errorf("execution error: %v", err)
	}

	f.Arm(comfyfake.Drop, 2) // the resend vanishes too
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); !errors.As(err, &fl) {
		t.Errorf("vanished: %v", err)
	}

	if _, err := b.run(context.Background(), bound(t, ForText, map[string]any{"checkpoint": "missing.safetensors"})); !errors.As(err, &fl) {
		t.Errorf("refused graph: %v", err)
	}

	f.Arm(comfyfake.Drop, 1) // vanishes once: sent again with the same id, then runs
	before := len(f.Prompts())
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); err != nil {
		t.Errorf("vanished once: %v", err)
	}
	if p := f.Prompts(); len(p) != before+2 || p[before].ID != p[before+1].ID {
		t.Errorf("resend: %d prompts after %d", len(p), before)
	}

	f.Arm(comfyfake.Lose, 1)
	before = len(f.Prompts())
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); err != nil {
		t.Errorf("lost answer: %v", err)
	}
	if n := len(f.Prompts()) - before; n != 1 {
		t.Errorf("lost answer: queued %d times, want once", n)
	}

	f.Arm(comfyfake.Busy, 1)
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); !errors.As(err, &fl) || fl.Class != engines.ClassBusy || fl.RetryAfter != time.Second {
		t.Errorf("429: %v, want busy for 1 s (the pool waits and retries)", err)
	}

	f.Arm(comfyfake.StallWS, -1)
	if _, err := b.run(context.Background(), bound(t, ForText, nil)); err != nil {
		t.Errorf("stalled socket: %v", err)
	}
}

// TestUploadAndImageWorkflows: uploads are named by content (idempotent), and the image
// and edit workflows run with them.
func TestUploadAndImageWorkflows(t *testing.T) {
	b, f := testBackend(t, comfyfake.Config{})
	png := fakekit.EncodePNG(fakekit.Scene(1, "ref", 1344, 768))
	n1, err := b.upload(context.Background(), png)
	if err != nil {
		t.Fatal(err)
	}
	n2, _ := b.upload(context.Background(), png)
	if n1 != n2 || f.File("input", "thumbforge", n1[len("thumbforge/"):]) == nil {
		t.Errorf("names %q %q", n1, n2)
	}
	mask := fakekit.EncodePNG(fakekit.Scene(2, "mask", 1344, 768))
	m, _ := b.upload(context.Background(), mask)
	for _, k := range []Purpose{ForImage, ForEdit} {
		if _, err := b.run(context.Background(), bound(t, k, map[string]any{"image": n1, "mask": m})); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// TestSocketEndWakesThePoller: with polling turned off in effect, the run still ends as
// soon as the socket says the prompt is done (executing with node null, sent after the
// history is written: waking on execution_success, which comes first, would find no
// history and sleep a poll interval).
func TestSocketEndWakesThePoller(t *testing.T) {
	b, _ := testBackend(t, comfyfake.Config{})
	b.poll = time.Hour
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := b.run(ctx, bound(t, ForText, nil))
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v (the socket's end event did not wake the poller)", i, err)
		}
	}
}
