package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/testutil"
)

func TestServeDevAndGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	data := t.TempDir()
	s := testutil.StartServe(t, data, nil, "--allow-private-fetch")
	if !strings.HasPrefix(s.Key, "mdl_") {
		t.Fatalf("dev key %q", s.Key)
	}
	// A slow image makes a request that is still in flight when SIGTERM arrives.
	var img bytes.Buffer
	jpeg.Encode(&img, solid(64, 64), nil)
	arrived := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		time.Sleep(700 * time.Millisecond)
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(img.Bytes())
	}))
	defer slow.Close()
	result := make(chan int, 1)
	go func() {
		code, _ := s.Call(t, "POST", "/v1/recreate", `{"image_url":"`+slow.URL+`/a.jpg","model":"mdl-3"}`)
		result <- code
	}()
	<-arrived
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-result; code != 200 {
		t.Fatalf("in-flight request ended %d during shutdown", code)
	}
	select {
	case <-s.Done:
		if s.Err != nil {
			t.Fatalf("exit after SIGTERM: %v", s.Err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}

	// The second start keeps the same dev account and key, and its credits.
	s2 := testutil.StartServe(t, data, nil)
	if s2.Key != s.Key {
		t.Fatalf("dev key changed: %q then %q", s.Key, s2.Key)
	}
	code, body := s2.Call(t, "POST", "/v2/thumbnail/text", `{"prompt":"Hello again","model":"mdl_3","format":"1:1"}`)
	if code != 200 {
		t.Fatalf("after restart: %d %v", code, body)
	}
	out, _, _ := cli(t, "accounts", "list", "--data", data, "--json")
	var accts []struct{ Balance int64 }
	mustJSON(t, out, &accts)
	if len(accts) != 1 || accts[0].Balance != 1000-16-16 {
		t.Fatalf("accounts after two runs: %s", out)
	}
}

func solid(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 100, 50, 255
	}
	img.Set(1, 1, color.Black)
	return img
}

// TestDataDirLocked: a second serve on the same SQLite data directory refuses to start,
// naming the process that holds it; once that process is SIGKILLed, a new one starts.
func TestDataDirLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	data := t.TempDir()
	first := testutil.StartServe(t, data, nil)
	out, err := exec.Command(testutil.Thumbforge(t), "serve", "--data", data, "--addr", testutil.FreeAddr(t)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another thumbforge serve") ||
		!strings.Contains(string(out), strconv.Itoa(first.Cmd.Process.Pid)) {
		t.Fatalf("second serve: %v\n%s\nwant a refusal naming pid %d", err, out, first.Cmd.Process.Pid)
	}
	// Admin commands still work beside the server.
	if _, errs, code := cli(t, "accounts", "list", "--data", data); code != 0 {
		t.Fatalf("accounts list beside serve: %d %s", code, errs)
	}
	first.Cmd.Process.Signal(syscall.SIGKILL)
	<-first.Done
	again := testutil.StartServe(t, data, nil) // the kernel dropped the lock with the process
	if again.Key != first.Key {
		t.Fatalf("dev key changed across the restart")
	}
}
