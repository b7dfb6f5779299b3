package cluster_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/testutil"
)

// leaseTTL is the replicas' lease TTL: how long a killed replica's slots stay taken.
const leaseTTL = 3 * time.Second

// cluster is N `thumbforge serve` processes on one database and one bucket, behind a
// round-robin proxy.
type cluster struct {
	t         *testing.T
	bin       string
	dsn       string
	blobs     string
	bucketDir string
	replicas  []*replica
	proxy     *http.Server
	proxyURL  string
	client    *http.Client
}

// replica is one serve process.
type replica struct {
	addr string
	data string
	cmd  *exec.Cmd
	out  *testutil.SyncBuffer
	done chan struct{}
}

func (r *replica) url() string { return "http://" + r.addr }

// alive says whether the process is still running.
func (r *replica) alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// startReplicas starts n replicas at once (so they race to migrate the fresh database,
// as a deployment's replicas do) and waits until each answers /readyz.
func (c *cluster) startReplicas(n int) {
	c.t.Helper()
	var started []*replica
	for range n {
		started = append(started, c.spawn(nil))
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, r := range started {
		c.waitReady(r, deadline)
	}
}

// spawn starts one more replica with the common flags plus extra ones, and env added to
// the environment. It is stopped when the current test (or step) ends.
func (c *cluster) spawn(env []string, extra ...string) *replica {
	c.t.Helper()
	t := c.t
	r := &replica{addr: testutil.FreeAddr(t), data: t.TempDir(), out: &testutil.SyncBuffer{}, done: make(chan struct{})}
	args := append([]string{"serve", "--addr", r.addr, "--data", r.data,
		"--database", c.dsn, "--blobs", c.blobs, "--allow-private-fetch",
		"--limit-lease-ttl", leaseTTL.String()}, extra...)
	r.cmd = exec.Command(c.bin, args...)
	if len(env) > 0 {
		r.cmd.Env = append(os.Environ(), env...)
	}
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	c.replicas = append(c.replicas, r)
	i := len(c.replicas) - 1
	t.Cleanup(func() {
		stop(r)
		if t.Failed() {
			t.Logf("replica %d (%s) output:\n%s", i, r.addr, r.out)
		}
	})
	return r
}

// waitReady waits until r answers /readyz, failing at deadline or if it exits.
func (c *cluster) waitReady(r *replica, deadline time.Time) {
	c.t.Helper()
	for {
		resp, err := http.Get(r.url() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if !r.alive() {
			c.t.Fatalf("replica %d exited at start:\n%s", c.indexOf(r), r.out)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("replica %d not ready in time:\n%s", c.indexOf(r), r.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends a replica as an orchestrator does: SIGTERM, then SIGKILL after 10 s.
func stop(r *replica) {
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
}

// kill ends replica i with SIGKILL: no shutdown, no lease handed back.
func (c *cluster) kill(i int) {
	c.t.Helper()
	r := c.replicas[i]
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	<-r.done
}

// startProxy puts a round-robin reverse proxy in front of every replica, dead or alive,
// as a load balancer without health checks does: a dead backend answers 502. It names
// the backend that served each response in X-Backend.
func (c *cluster) startProxy() {
	c.t.Helper()
	var backends []*url.URL
	for _, r := range c.replicas {
		u, _ := url.Parse(r.url())
		backends = append(backends, u)
	}
	var next atomic.Uint64
	tr := &http.Transport{MaxIdleConnsPerHost: 200, IdleConnTimeout: 30 * time.Second}
	rp := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int(next.Add(1)-1) % len(backends)
			pr.SetURL(backends[i])
			pr.Out.Header.Set("X-Backend-Index", string(rune('0'+i)))
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Set("X-Backend", resp.Request.Header.Get("X-Backend-Index"))
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
		},
		ErrorLog: quietLog(),
	}
	ln := listen(c.t)
	c.proxy = &http.Server{Handler: rp, ErrorLog: quietLog()}
	go c.proxy.Serve(ln)
	c.proxyURL = "http://" + ln.Addr().String()
	c.t.Cleanup(func() { c.proxy.Close(); tr.CloseIdleConnections() })
}

// response is one answer: status, decoded JSON body and the backend that served it.
type response struct {
	Status  int
	Body    map[string]any
	Raw     []byte
	Backend string
	Err     error // transport error: no answer at all
}

func (r response) str(field string) string { s, _ := r.Body[field].(string); return s }

// code is the error code of a v1 or v2 error body.
func (r response) code() string {
	e, _ := r.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// retryable says whether a client should retry: no answer, the proxy's 502/503 for a
// dead backend, or 429.
func (r response) retryable() bool {
	return r.Err != nil || r.Status == http.StatusBadGateway || r.Status == http.StatusServiceUnavailable ||
		r.Status == http.StatusTooManyRequests
}

// do sends a request with the key to base+path; body is JSON-encoded when not nil.
func (c *cluster) do(method, base, path, key string, body any) response {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return response{Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{Status: resp.StatusCode, Err: err}
	}
	r := response{Status: resp.StatusCode, Raw: raw, Backend: resp.Header.Get("X-Backend")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		json.Unmarshal(raw, &r.Body)
	}
	return r
}

// parallel runs n copies of f at once and returns their results in order.
func parallel(n int, f func(i int) response) []response {
	out := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = f(i) })
	}
	wg.Wait()
	return out
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// quietLog drops the proxy's per-request error lines: dead backends are expected here.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
