package fakekit

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// Request is one request a fake received, as sent.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Log records every request that reaches the handler it wraps; safe for concurrent use.
type Log struct {
	mu   sync.Mutex
	reqs []Request
}

// Wrap returns next behind the log. The body is read whole (fakes are fed by tests) and
// handed on unchanged.
func (l *Log) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		l.mu.Lock()
		l.reqs = append(l.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// Requests returns a copy of what was received, oldest first.
func (l *Log) Requests() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Request(nil), l.reqs...)
}

// Count returns how many requests had this method and path.
func (l *Log) Count(method, path string) int {
	n := 0
	for _, r := range l.Requests() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// Shots are named one-shot faults: a test arms a name n times, the fake takes one each
// time it could fail that way.
type Shots struct {
	mu sync.Mutex
	n  map[string]int
}

// Arm makes the next n Takes of name succeed; a negative n arms it for good, 0 disarms.
func (s *Shots) Arm(name string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[name] = n
}

// Take reports whether the fault name is armed, using up one shot.
func (s *Shots) Take(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch n := s.n[name]; {
	case n < 0:
		return true
	case n == 0:
		return false
	default:
		s.n[name] = n - 1
		return true
	}
}
