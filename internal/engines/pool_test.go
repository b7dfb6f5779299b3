package engines

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"thumbforge/internal/core"
)

// stub is an in-process backend: it answers from a queue of scripted results, counts
// calls and what runs at once, and can block until released.
type stub struct {
	mu       sync.Mutex
	calls    int
	running  int
	peak     int
	results  []error // consumed in order; nil = a picture
	block    chan struct{}
	pingErr  error
	started  chan struct{}
	ctxEnded int
}

func (s *stub) Caps() Caps                     { return CapText }
func (s *stub) Size(core.Format) (int, int)    { return 64, 36 }
func (s *stub) Ping(ctx context.Context) error { s.mu.Lock(); defer s.mu.Unlock(); return s.pingErr }
func (s *stub) setPing(err error)              { s.mu.Lock(); s.pingErr = err; s.mu.Unlock() }
func (s *stub) stats() (calls, peak, ended int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, s.peak, s.ctxEnded
}
func (s *stub) script(errs ...error) {
	s.mu.Lock()
	s.results = append(s.results, errs...)
	s.mu.Unlock()
}

func (s *stub) Generate(ctx context.Context, _ *Request) ([]byte, error) {
	s.mu.Lock()
	s.calls++
	s.running++
	s.peak = max(s.peak, s.running)
	var err error
	if len(s.results) > 0 {
		err, s.results = s.results[0], s.results[1:]
	}
	block := s.block
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.running--; s.mu.Unlock() }()
	if s.started != nil {
		s.started <- struct{}{}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			s.mu.Lock()
			s.ctxEnded++
			s.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	return []byte("picture"), nil
}

func testPool(t *testing.T, limit int, backends ...*stub) (*pool, *metrics) {
	t.Helper()
	m, err := newMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	bs := make([]Backend, len(backends))
	urls := make([]string, len(backends))
	for i, b := range backends {
		bs[i], urls[i] = b, "http://user:secret@backend-"+string(rune('a'+i))+":8188/?token=x"
	}
	return newPool(bs, urls, limit, m), m
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func noRedact(s string) string { return s }

func run(p *pool, ctx context.Context) ([]byte, error) {
	return p.do(ctx, quiet, noRedact, func(ctx context.Context, b Backend) ([]byte, error) { return b.Generate(ctx, nil) })
}

func TestLabelDropsCredentials(t *testing.T) {
	if got := Label("http://user:secret@host:8188/api?token=abc#x"); got != "http://host:8188/api" {
		t.Fatalf("Label = %q", got)
	}
}

func TestPoolBoundsConcurrencyPerBackend(t *testing.T) {
	a, b := &stub{block: make(chan struct{})}, &stub{block: make(chan struct{})}
	p, m := testPool(t, 2, a, b)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := run(p, context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	waitTrue(t, func() bool { ca, _, _ := a.stats(); cb, _, _ := b.stats(); return ca+cb == 4 })
	close(a.block)
	close(b.block)
	wg.Wait()
	ca, pa, _ := a.stats()
	cb, pb, _ := b.stats()
	if ca+cb != 10 || pa > 2 || pb > 2 {
		t.Fatalf("calls %d+%d, peaks %d and %d (limit 2)", ca, cb, pa, pb)
	}
	if n := testutil.CollectAndCount(m.wait); n != 1 {
		t.Fatalf("wait histogram series: %d", n)
	}
	if got := testutil.ToFloat64(m.requests.WithLabelValues("http://backend-a:8188/", outcomeOK)); got != float64(ca) {
		t.Fatalf("ok count for a: %v, want %d", got, ca)
	}
}

func TestPoolWaitEndsWithContext(t *testing.T) {
	a := &stub{block: make(chan struct{}), started: make(chan struct{}, 1)}
	p, _ := testPool(t, 1, a)
	go run(p, context.Background())
	<-a.started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := run(p, ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the deadline: %v", err)
	}
	if calls, _, _ := a.stats(); calls != 1 {
		t.Fatalf("the waiting request reached the backend (%d calls)", calls)
	}
	close(a.block)
	waitTrue(t, func() bool { return p.snapshot()[0].InFlight == 0 })
	if _, err := run(p, context.Background()); err != nil { // the abandoned wait left no slot taken
		t.Fatal(err)
	}
}

func TestPoolFailsOverAndSkipsUnhealthy(t *testing.T) {
	a, b := &stub{}, &stub{}
	a.script(Unavailable(errors.New("connection refused")))
	a.setPing(Unavailable(errors.New("connection refused")))
	p, m := testPool(t, 1, a, b)
	for range 3 {
		if _, err := run(p, context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if ca, _, _ := a.stats(); ca != 1 {
		t.Fatalf("the unreachable backend was tried %d times, want once", ca)
	}
	h := p.snapshot()
	if h[0].Healthy || h[0].Reason != "unreachable" || !h[1].Healthy {
		t.Fatalf("health %+v", h)
	}
	if got := testutil.ToFloat64(m.up.WithLabelValues(h[0].URL)); got != 0 {
		t.Fatalf("up gauge %v", got)
	}
	p.pingAll(context.Background(), true, time.Second) // still down
	if p.snapshot()[0].Healthy {
		t.Fatal("a failing ping made the backend healthy")
	}
	a.setPing(nil)
	p.pingAll(context.Background(), true, time.Second)
	if !p.snapshot()[0].Healthy {
		t.Fatal("a backend that answers again stays skipped")
	}
}

func TestPoolAllUnavailableReturnsLastError(t *testing.T) {
	a := &stub{}
	a.script(&Error{Class: ClassUnavailable, Status: 401, Detail: "bad key"})
	p, _ := testPool(t, 1, a)
	_, err := run(p, context.Background())
	if e, c := classOf(err); c != ClassUnavailable || e.Status != 401 {
		t.Fatalf("err %v", err)
	}
	if r := p.snapshot()[0].Reason; r != "key refused (HTTP 401)" {
		t.Fatalf("reason %q", r)
	}
}

func TestPoolRetriesBusyWithinDeadline(t *testing.T) {
	a := &stub{}
	a.script(Busy(429, 20*time.Millisecond, "queue full"))
	p, _ := testPool(t, 1, a)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := run(p, ctx); err != nil {
		t.Fatal(err)
	}
	if calls, _, _ := a.stats(); calls != 2 {
		t.Fatalf("calls %d, want 2", calls)
	}
	a.script(Busy(429, time.Hour, "queue full"))
	if _, err := run(p, ctx); !errors.Is(err, errBusyPastDeadline) {
		t.Fatalf("a Retry-After past the deadline: %v", err)
	}
}

func TestPoolDoesNotRetryFailuresOrRefusals(t *testing.T) {
	a, b := &stub{}, &stub{}
	a.script(Failed("boom"), Refused(400, "moderation_blocked"))
	p, _ := testPool(t, 1, a, b)
	for _, want := range []Class{ClassFailed, ClassRefused} {
		_, err := run(p, context.Background())
		if _, c := classOf(err); c != want {
			t.Fatalf("err %v, want %v", err, want)
		}
		// round robin: make a the next pick again
		p.mu.Lock()
		p.next = 0
		p.mu.Unlock()
	}
	if cb, _, _ := b.stats(); cb != 0 {
		t.Fatalf("a failure was retried on another backend (%d calls)", cb)
	}
	if !p.snapshot()[0].Healthy {
		t.Fatal("a failed generation made the backend unhealthy")
	}
}

func TestPoolServesWaitersInOrder(t *testing.T) {
	a := &stub{block: make(chan struct{}), started: make(chan struct{}, 16)}
	p, _ := testPool(t, 1, a)
	go run(p, context.Background())
	<-a.started
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(p, context.Background())
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
		waitTrue(t, func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(p.waiters) == i+1 })
	}
	for range 6 {
		a.block <- struct{}{}
	}
	wg.Wait()
	for i, v := range order {
		if v != i {
			t.Fatalf("served in order %v, want arrival order", order)
		}
	}
}

func waitTrue(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(time.Millisecond)
	}
}
