package api

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
	"thumbforge/internal/memory"
)

type principalKey struct{}

// principal returns the authenticated caller; routes behind auth always have one.
func principal(r *http.Request) core.Principal {
	p, _ := r.Context().Value(principalKey{}).(core.Principal)
	return p
}

// reqInfo is what the access log learns while a request runs.
type reqInfo struct {
	keyID string
}

type infoKey struct{}

// recorder remembers the status written.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func versionOf(path string) Version {
	if strings.HasPrefix(path, "/v1/") {
		return V1
	}
	return V2
}

// outer gives every request an id, recovers panics and writes the access log.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id, err := uuid.NewV7()
		if err != nil {
			id = uuid.New()
		}
		info := &reqInfo{}
		ctx := core.WithRequestID(r.Context(), id.String())
		ctx = context.WithValue(ctx, infoKey{}, info)
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id.String())
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(ctx, "panic", "request_id", id.String(), "panic", fmt.Sprint(p))
				if rec.status == 0 {
					writeError(rec, r, s.log, versionOf(r.URL.Path), core.E(core.CodeInternal, "Internal error."))
				}
			}
			s.log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("request_id", id.String()), slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", rec.status),
				slog.String("key_id", info.keyID), slog.Duration("duration", time.Since(start)))
		}()
		next.ServeHTTP(rec, r)
	})
}

// handlerFunc is an API handler: it writes a success or returns an error to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// api wraps an API handler with metrics, maintenance, auth and the in-flight limit.
func (s *Server) api(route string, v Version, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.metrics.inFlight.Inc()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			s.metrics.inFlight.Dec()
			s.metrics.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
			s.metrics.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
		}()
		keySlot := !slotFree[route]
		serve := func(w http.ResponseWriter, r *http.Request, h handlerFunc) error {
			return s.serveAPI(w, r, v, keySlot, h)
		}
		if v == Admin {
			serve = s.serveAdmin
		}
		if err := serve(rec, r, h); err != nil {
			if rec.status != 0 {
				return // the handler already answered
			}
			writeError(rec, r, s.log, v, err)
		}
	})
}

// slotFree are the routes that take no in-flight slot of their key: reading and cancelling
// requests, which running asynchronous requests would otherwise lock out (a key with limit
// 1 and one request running could not poll it). The process-wide cap still applies.
var slotFree = map[string]bool{"GET /v2/requests/{id}": true, "DELETE /v2/requests/{id}": true}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, v Version, keySlot bool, h handlerFunc) error {
	if on, err := s.maintenance(r.Context()); err != nil {
		return err
	} else if on {
		return core.E(core.CodeMaintenance, "The service is under maintenance. Retry later.")
	}
	p, err := s.authenticate(r)
	if err != nil {
		return err
	}
	if info, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		info.keyID = p.Key.ID.String()
	}
	release, err := s.acquireSlots(r, p, keySlot)
	if err != nil {
		return err
	}
	defer release()
	ctx, end := memory.WithScope(context.WithValue(r.Context(), principalKey{}, p))
	defer end() // what the request decoded is given back to the budget
	r = r.WithContext(ctx)
	if err := s.reserveBody(r); err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		return s.idempotent(w, r, p, v, h) // a repeat of a keyed POST gets the first answer
	}
	return h(w, r)
}

// acquireSlots takes the request's in-flight slots: one of its key's (or, per account, its
// account's) and one of the process's. Either one missing is 429 at once.
func (s *Server) acquireSlots(r *http.Request, p core.Principal, keySlot bool) (func(), error) {
	release := func() {}
	if keySlot {
		key, what, limit := s.slotKey(p)
		rel, ok, err := s.limiter.Acquire(r.Context(), key, limit)
		if err != nil {
			return nil, core.Wrap(core.CodeInternal, err, "Internal error.")
		}
		if !ok {
			return nil, core.E(core.CodeTooManyRequests, "Too many requests in flight for this %s (limit %d).", what, limit)
		}
		release = rel
	}
	if s.maxInFlight > 0 {
		if n := s.inFlight.Add(1); n > s.maxInFlight {
			s.inFlight.Add(-1)
			release()
			return nil, core.E(core.CodeTooManyRequests, "The server has too many requests in flight. Retry later.")
		}
		return func() { s.inFlight.Add(-1); release() }, nil
	}
	return release, nil
}

// slotKey names the in-flight slots p counts against (its key's, or its account's), what
// they belong to, and their limit.
func (s *Server) slotKey(p core.Principal) (key, what string, limit int) {
	limit = p.Account.Concurrency
	if limit <= 0 {
		limit = core.DefaultConcurrency
	}
	if s.perAccount {
		return "account:" + p.Account.ID.String(), "account", limit
	}
	return "key:" + p.Key.ID.String(), "API key", limit
}

// smallBody is the body size below which no memory is reserved: the in-flight cap bounds
// what such bodies can hold, and small requests never queue behind large ones.
const smallBody = 64 << 10

// reserveBody reserves, for the request's lifetime, twice its body's size (its bytes,
// then the strings decoded from them; the JSON parser copies nothing else): the announced
// length, or the cap when none is announced. It waits in line like a decode.
func (s *Server) reserveBody(r *http.Request) error {
	n := r.ContentLength
	if s.budget == nil || n == 0 || (n > 0 && n < smallBody) {
		return nil
	}
	if n < 0 || n > MaxBodyBytes {
		n = MaxBodyBytes // a longer body is refused while it is read
	}
	res, err := s.budget.Admit(r.Context(), 2*n)
	switch {
	case core.AsError(err) != nil:
		return err
	case errors.Is(err, context.Canceled):
		return core.Wrap(core.CodeCancelled, err, "The request was cancelled by the client.")
	case err != nil:
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	memory.Hold(r.Context(), res)
	return nil
}

// serveAdmin runs an operator's request: the admin token, and nothing else in the way.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request, h handlerFunc) error {
	if err := s.adminAuth(r); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return h(w, r)
}

// authenticate applies the checks of DESIGN §3 in their order.
func (s *Server) authenticate(r *http.Request) (core.Principal, error) {
	secret := r.Header.Get("X-Api-Key")
	switch {
	case secret == "":
		return core.Principal{}, core.E(core.CodeMissingAPIKey, "The X-Api-Key header is missing.")
	case !core.WellFormedKey(secret):
		return core.Principal{}, core.E(core.CodeInvalidAPIKeyFormat, "The API key is malformed: keys are mdl_ followed by letters and digits.")
	}
	hash := core.HashKey(secret)
	key, acct, err := s.store.KeyByHash(r.Context(), hash)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return core.Principal{}, core.E(core.CodeInvalidAPIKey, "The API key is not valid.")
	case err != nil:
		return core.Principal{}, core.Wrap(core.CodeInternal, err, "Internal error.")
	case subtle.ConstantTimeCompare(key.Hash, hash) != 1:
		return core.Principal{}, core.E(core.CodeInvalidAPIKey, "The API key is not valid.")
	case key.Status == core.KeyDeleted:
		return core.Principal{}, core.E(core.CodeAPIKeyDeleted, "The API key has been deleted.")
	case key.Status != core.KeyActive:
		return core.Principal{}, core.E(core.CodeAPIKeyInactive, "The API key is inactive.")
	case acct.Suspended:
		return core.Principal{}, core.E(core.CodeAccountSuspended, "The account is suspended.")
	case !acct.APIAccess:
		return core.Principal{}, core.E(core.CodeAPIAccessNotEnabled, "API access is not enabled for this account.")
	}
	return core.Principal{Account: acct, Key: key}, nil
}

// maintenanceCache keeps the maintenance switch for a short while, so that the store is
// not asked on every request.
type maintenanceCache struct {
	ttl   time.Duration
	state atomic.Pointer[maintenanceState]
}

type maintenanceState struct {
	on      bool
	checked time.Time
}

func (s *Server) maintenance(ctx context.Context) (bool, error) {
	if st := s.mcache.state.Load(); st != nil && time.Since(st.checked) < s.mcache.ttl {
		return st.on, nil
	}
	on, err := s.store.Maintenance(ctx)
	if err != nil {
		return false, core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	s.mcache.state.Store(&maintenanceState{on: on, checked: time.Now()})
	return on, nil
}
