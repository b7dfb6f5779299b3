package sdapi

import (
	"bytes"
	"context"
	"encoding/base64"
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
	"thumbforge/internal/engines/enginetest/fakekit"
	"thumbforge/internal/engines/enginetest/sdapifake"
)

func testBackend(t *testing.T, cfg sdapifake.Config, user, pass string) (*backend, *sdapifake.Fake) {
	t.Helper()
	f, srv := sdapifake.Serve(t, cfg)
	u, _ := url.Parse(srv.URL)
	return &backend{base: u, user: user, pass: pass, hc: &http.Client{Timeout: 30 * time.Second},
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), watchEvery: 10 * time.Millisecond}, f
}

func txt(task string) map[string]any {
	return map[string]any{"prompt": "a lighthouse", "negative_prompt": "text", "seed": 3, "steps": 2,
		"cfg_scale": 6.5, "width": 1344, "height": 768, "sampler_name": "DPM++ 2M", "scheduler": "karras",
		"batch_size": 1, "n_iter": 1, "send_images": true, "save_images": false, "force_task_id": task}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
	}
}

func TestGenerateAndAuth(t *testing.T) {
	b, _ := testBackend(t, sdapifake.Config{Auth: "user:pa:ss"}, "user", "pa:ss")
	data, err := b.generate(context.Background(), "txt2img", txt("t1"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || c.Width != 1344 || c.Height != 768 {
		t.Errorf("picture %+v %v", c, err)
	}
	ref := base64.StdEncoding.EncodeToString(fakekit.EncodePNG(fakekit.Scene(1, "r", 1344, 768)))
	req := txt("t2")
	req["init_images"], req["denoising_strength"] = []string{ref}, 0.35
	if _, err := b.generate(context.Background(), "img2img", req); err != nil {
		t.Fatal(err)
	}
	b.pass = "wrong"
	var f *engines.Error
	if _, err := b.generate(context.Background(), "txt2img", txt("t3")); !errors.As(err, &f) || f.Status != 401 || f.Class != engines.ClassUnavailable {
		t.Errorf("wrong password: %v, want unavailable (401)", err)
	}
}

// TestCancelInterruptsOnlyOurTask: a cancelled running task is interrupted; a cancelled
// task still waiting behind another is interrupted when it starts, not before.
func TestCancelInterruptsOnlyOurTask(t *testing.T) {
	b, f := testBackend(t, sdapifake.Config{}, "", "")
	f.Arm(sdapifake.Hang, 1)
	other := make(chan error, 1)
	go func() { _, err := b.generate(context.Background(), "txt2img", txt("someone-else")); other <- err }()
	waitFor(t, func() bool { return f.Current() == "someone-else" })

	ctx, cancel := context.WithCancel(context.Background())
	mine := make(chan error, 1)
	go func() { _, err := b.generate(ctx, "txt2img", txt("mine")); mine <- err }()
	waitFor(t, func() bool { return f.Count("POST", "/sdapi/v1/txt2img") == 2 })
	cancel()
	if err := <-mine; !errors.Is(err, context.Canceled) {
		t.Fatalf("mine: %v", err)
	}
	time.Sleep(50 * time.Millisecond) // the watcher looks a few times: it must not interrupt the other task
	if n := len(f.Interrupts()); n != 0 {
		t.Fatalf("interrupted %d times while another task ran", n)
	}
	f.Arm(sdapifake.Hang, 1) // our task hangs once it starts: only the watcher's interrupt ends it
	// end the other task: ours starts, and the watcher interrupts it
	http.Post(b.base.String()+"/sdapi/v1/interrupt", "application/json", nil)
	if err := <-other; err != nil {
		t.Fatalf("other: %v", err)
	}
	waitFor(t, func() bool {
		in := f.Interrupts()
		return len(in) == 2 && in[1].Current == "mine"
	})
}

func TestBusyGoesBackToThePool(t *testing.T) {
	b, f := testBackend(t, sdapifake.Config{}, "", "")
	f.Arm(sdapifake.Busy, 1)
	var fl *engines.Error
	if _, err := b.generate(context.Background(), "txt2img", txt("b")); !errors.As(err, &fl) || fl.Class != engines.ClassBusy || fl.RetryAfter != time.Second {
		t.Errorf("429: %v, want busy for 1 s", err)
	}
	f.Arm(sdapifake.Fail, 1)
	if _, err := b.generate(context.Background(), "txt2img", txt("c")); !errors.As(err, &fl) || fl.Class != engines.ClassFailed {
		t.Errorf("500: %v, want failed", err)
	}
}

// TestProgressIsFollowed: while a generation runs, its task's progress is reported.
func TestProgressIsFollowed(t *testing.T) {
	b, _ := testBackend(t, sdapifake.Config{StepDelay: 20 * time.Millisecond}, "", "")
	var mu sync.Mutex
	var seen []int
	ctx := core.WithProgress(context.Background(), func(p int) { mu.Lock(); seen = append(seen, p); mu.Unlock() })
	req := txt("p1")
	req["steps"], req["width"], req["height"] = 20, 64, 64
	if _, err := b.generate(ctx, "txt2img", req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1] > 100 || seen[0] < 0 {
		t.Errorf("progress %v, want reports in 0..100 while 20 steps of 20 ms ran", seen)
	}
}
