package fakekit

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
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

// Fault names a failure a fake can simulate.
type Fault string

// Shots are one-shot faults: a test arms a fault n times, the fake takes one each time it
// could fail that way.
type Shots struct {
	mu sync.Mutex
	n  map[Fault]int
}

// Arm makes the next n occasions fail with fault (n < 0: always, 0: never again).
func (s *Shots) Arm(name Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[Fault]int{}
	}
	s.n[name] = n
}

// Take reports whether the fault is armed, using up one shot.
func (s *Shots) Take(name Fault) bool {
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

// Start serves a fake on a loopback port until the test ends, calling stop first (to end
// hangs) and then closing every connection.
func Start(t interface{ Cleanup(func()) }, h http.Handler, stop func()) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		stop()
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// Unless answers 502, as a proxy in front of a dead backend does, while fault is armed,
// and hands every other request to next.
func (s *Shots) Unless(fault Fault, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Take(fault) {
			http.Error(w, "502 Bad Gateway", http.StatusBadGateway)
			return
		}
		next.ServeHTTP(w, r)
	})
}
