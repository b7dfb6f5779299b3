package memory

import (
	"context"
	"sync"
)

type scopeKey struct{}

// scope holds reservations whose memory outlives the call that took them (a decoded input
// kept until the request's output is rendered), until the request or job ends.
type scope struct {
	mu   sync.Mutex
	held []*Reservation
	done bool
}

// WithScope returns a context whose Hold-ed reservations are released by end.
func WithScope(ctx context.Context) (context.Context, func()) {
	s := &scope{}
	return context.WithValue(ctx, scopeKey{}, s), s.end
}

func (s *scope) end() {
	s.mu.Lock()
	held := s.held
	s.held, s.done = nil, true
	s.mu.Unlock()
	for _, r := range held {
		r.Release()
	}
}

// Hold keeps r until the scope of ctx ends. Without a scope (or once it ended) r is
// released at once: its memory is then unaccounted, never leaked from the budget.
func Hold(ctx context.Context, r *Reservation) {
	if r == nil {
		return
	}
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s != nil {
		s.mu.Lock()
		if !s.done {
			s.held = append(s.held, r)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
	r.Release()
}
