package engines

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"sync"
	"time"
)

// member is one backend of a pool and its state; the pool's mutex guards the state.
type member struct {
	label   string // URL without credentials or query: logs, metrics, /readyz
	backend Backend
	limit   int

	inFlight  int
	healthy   bool
	busyUntil time.Time // a 429 asked to wait until then
	reason    string    // why unhealthy, in public words (never backend text)
}

// waiter is a request waiting for a slot; a releasing request hands its slot over.
type waiter struct {
	ch      chan *member // buffered: the hand-over never blocks
	exclude map[*member]bool
}

// pool spreads requests over backends: at most limit in flight on each, waiting in
// line (first come, first served) inside the caller's deadline, skipping unhealthy
// backends while a healthy one exists, and sitting out a 429's Retry-After.
type pool struct {
	mu      sync.Mutex
	members []*member
	waiters []*waiter
	next    int // round-robin start, so equal backends share the load
	m       *metrics
	now     func() time.Time
}

// errNoBackend means every backend was tried and failed for this request.
var errNoBackend = errors.New("no backend left to try")

func newPool(backends []Backend, urls []string, limit int, m *metrics) *pool {
	p := &pool{m: m, now: time.Now}
	for i, b := range backends {
		mb := &member{label: Label(urls[i]), backend: b, limit: limit, healthy: true}
		p.members = append(p.members, mb)
		m.up.WithLabelValues(mb.label).Set(1)
	}
	return p
}

// Label is how a backend URL appears in logs, metrics and /readyz: no user, password,
// query or fragment.
func Label(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "backend"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// acquire takes a slot on a backend not in exclude, waiting until one frees up, a busy
// backend's Retry-After passes, or ctx ends. It fails with errNoBackend when every
// backend is excluded.
func (p *pool) acquire(ctx context.Context, exclude map[*member]bool) (*member, error) {
	start := p.now()
	defer func() { p.m.wait.Observe(p.now().Sub(start).Seconds()) }()
	for {
		p.mu.Lock()
		m, wake, err := p.pick(exclude)
		if m != nil || err != nil {
			p.mu.Unlock()
			return m, err
		}
		w := &waiter{ch: make(chan *member, 1), exclude: exclude}
		p.waiters = append(p.waiters, w)
		p.mu.Unlock()

		var timer *time.Timer
		var tick <-chan time.Time
		if wake > 0 {
			timer = time.NewTimer(wake)
			tick = timer.C
		}
		select {
		case m := <-w.ch:
			stopTimer(timer)
			return m, nil
		case <-tick:
			if m := p.leave(w); m != nil {
				return m, nil
			}
		case <-ctx.Done():
			stopTimer(timer)
			if m := p.leave(w); m != nil {
				p.release(m)
			}
			return nil, ctx.Err()
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// leave takes w out of the line; if a slot was handed to it meanwhile, it returns it.
func (p *pool) leave(w *waiter) *member {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.waiters, w); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
		return nil
	}
	return <-w.ch // removed by a hand-over, which always sends
}

// pick returns a backend with a free slot (its slot taken), preferring healthy ones;
// when none is free, wake is how long until a busy backend may be tried again (0: wait
// for a release). Called with p.mu held.
func (p *pool) pick(exclude map[*member]bool) (m *member, wake time.Duration, err error) {
	now := p.now()
	anyHealthy, candidates := false, 0
	for _, mb := range p.members {
		if !exclude[mb] {
			candidates++
			anyHealthy = anyHealthy || mb.healthy
		}
	}
	if candidates == 0 {
		return nil, 0, errNoBackend
	}
	n := len(p.members)
	for i := range n {
		mb := p.members[(p.next+i)%n]
		if exclude[mb] || (anyHealthy && !mb.healthy) || mb.inFlight >= mb.limit {
			continue
		}
		if d := mb.busyUntil.Sub(now); d > 0 {
			if wake == 0 || d < wake {
				wake = d
			}
			continue
		}
		mb.inFlight++
		p.next = (p.next + i + 1) % n
		return mb, 0, nil
	}
	return nil, wake, nil
}

// release frees m's slot and hands free slots to the waiters, oldest first.
func (p *pool) release(m *member) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.inFlight--
	p.dispatch()
}

// dispatch gives free slots to waiting requests in arrival order. Called with p.mu held.
func (p *pool) dispatch() {
	for i := 0; i < len(p.waiters); {
		w := p.waiters[i]
		m, _, _ := p.pick(w.exclude)
		if m == nil {
			i++
			continue
		}
		p.waiters = slices.Delete(p.waiters, i, i+1)
		w.ch <- m
	}
}

// setHealth records whether m answers; reason says why not, in public words.
func (p *pool) setHealth(m *member, healthy bool, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.healthy, m.reason = healthy, reason
	if healthy {
		m.reason = ""
		p.m.up.WithLabelValues(m.label).Set(1)
		p.dispatch()
	} else {
		p.m.up.WithLabelValues(m.label).Set(0)
	}
}

// busy makes m sit out d (a 429's Retry-After).
func (p *pool) busy(m *member, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until := p.now().Add(d); until.After(m.busyUntil) {
		m.busyUntil = until
	}
}

// snapshot returns each member's health, for /readyz and the prober.
func (p *pool) snapshot() []BackendHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]BackendHealth, len(p.members))
	for i, m := range p.members {
		out[i] = BackendHealth{URL: m.label, Healthy: m.healthy, Reason: m.reason, InFlight: m.inFlight, Limit: m.limit}
	}
	return out
}

// BackendHealth is one backend's state as /readyz shows it.
type BackendHealth struct {
	URL      string `json:"url"`
	Healthy  bool   `json:"healthy"`
	Reason   string `json:"reason,omitempty"`
	InFlight int    `json:"in_flight"`
	Limit    int    `json:"concurrency"`
}
