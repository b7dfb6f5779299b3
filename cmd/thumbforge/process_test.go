package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/testutil"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// server is a running `thumbforge serve` process.
type server struct {
	cmd  *exec.Cmd
	addr string
	key  string
	done chan error
}

func startServe(t *testing.T, data string, extra ...string) *server {
	t.Helper()
	s := &server{addr: freeAddr(t), done: make(chan error, 1)}
	args := append([]string{"serve", "--dev", "--data", data, "--addr", s.addr}, extra...)
	s.cmd = exec.Command(testutil.Thumbforge(t), args...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = io.Discard
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); <-s.done })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no key printed: %v", err)
	}
	s.key = strings.TrimSpace(strings.TrimPrefix(line, "dev API key:"))
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + s.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not become ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) post(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+s.addr+path, strings.NewReader(body))
	req.Header.Set("X-Api-Key", s.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func TestServeDevAndGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	data := t.TempDir()
	s := startServe(t, data, "--allow-private-fetch")
	if !strings.HasPrefix(s.key, "mdl_") {
		t.Fatalf("dev key %q", s.key)
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
		code, _ := s.post(t, "/v1/recreate", `{"image_url":"`+slow.URL+`/a.jpg","model":"mdl-3"}`)
		result <- code
	}()
	<-arrived
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-result; code != 200 {
		t.Fatalf("in-flight request ended %d during shutdown", code)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
		s.done <- nil
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}

	// The second start keeps the same dev account and key, and its credits.
	s2 := startServe(t, data)
	if s2.key != s.key {
		t.Fatalf("dev key changed: %q then %q", s.key, s2.key)
	}
	code, body := s2.post(t, "/v2/thumbnail/text", `{"prompt":"Hello again","model":"mdl_3","format":"1:1"}`)
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
