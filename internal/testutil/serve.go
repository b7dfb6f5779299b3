package testutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/api/apitest"
)

// Server is a running `thumbforge serve --dev` process.
type Server struct {
	Cmd  *exec.Cmd
	Addr string
	URL  string
	// Key is the dev account's key the process printed.
	Key string
	// Done is closed when the process has exited; Err is then its exit error.
	Done chan struct{}
	Err  error
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartServe runs `thumbforge serve --dev --data data` on a free port with extra flags and
// env additions, and waits until /readyz answers. The process is killed at cleanup.
func StartServe(t testing.TB, data string, env []string, extra ...string) *Server {
	t.Helper()
	addr := FreeAddr(t)
	s := &Server{Addr: addr, URL: "http://" + addr, Done: make(chan struct{})}
	s.Cmd = exec.Command(Thumbforge(t), append([]string{"serve", "--dev", "--data", data, "--addr", addr}, extra...)...)
	s.Cmd.Env = append(os.Environ(), env...)
	s.Cmd.Stderr = io.Discard
	stdout, err := s.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, lineErr := bufio.NewReader(stdout).ReadString('\n')
	go func() { s.Err = s.Cmd.Wait(); close(s.Done) }()
	t.Cleanup(func() { s.Cmd.Process.Kill(); <-s.Done })
	if lineErr != nil {
		t.Fatalf("no dev key printed: %v", lineErr)
	}
	s.Key = strings.TrimSpace(strings.TrimPrefix(line, "dev API key:"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(s.URL + "/readyz"); err == nil {
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

// Call sends a JSON request with the dev key and decodes the JSON answer. The exchange is
// checked against the OpenAPI document (internal/api/apitest).
func (s *Server) Call(t testing.TB, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, s.URL+path, rd)
	req.Header.Set("X-Api-Key", s.Key)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	checker, err := apitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: checker.Transport(nil, t.Errorf)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}
