package api

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// Admin marks the operator's routes under /admin/api/: v2 error bodies, the admin token
// (Authorization: Bearer) instead of an API key, no in-flight limit, and no maintenance
// switch, since the operator must be able to turn it off.
const Admin Version = 3

// Limits of the admin endpoints' inputs.
const (
	maxAccountName  = 100
	maxConcurrency  = 1000
	maxCreditAmount = 1_000_000_000
)

// adminAuth checks the admin token in constant time against the stored hash.
func (s *Server) adminAuth(r *http.Request) error {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return core.E(core.CodeAdminToken, "An admin token is required: Authorization: Bearer <token> (make one with thumbforge admin-token).")
	}
	want, err := s.store.AdminTokenHash(r.Context())
	switch {
	case errors.Is(err, core.ErrNotFound):
		return core.E(core.CodeAdminToken, "No admin token is configured: make one with thumbforge admin-token.")
	case err != nil:
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if subtle.ConstantTimeCompare(core.HashKey(token), want) != 1 {
		return core.E(core.CodeAdminToken, "The admin token is not valid.")
	}
	return nil
}

// integer reads an optional whole-number field within [lo, hi].
func (b *body) integer(field string, lo, hi int64) (int64, bool) {
	b.seen[field] = true
	v, ok := b.raw[field]
	if !ok || string(v) == "null" {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal(v, &n); err != nil {
		b.problem(field, "must be a whole number")
		return 0, false
	}
	if n < lo || n > hi {
		b.problem(field, "must be between "+strconv.FormatInt(lo, 10)+" and "+strconv.FormatInt(hi, 10))
		return 0, false
	}
	return n, true
}

// boolean reads an optional true/false field.
func (b *body) boolean(field string) (bool, bool) {
	b.seen[field] = true
	v, ok := b.raw[field]
	if !ok || string(v) == "null" {
		return false, false
	}
	var x bool
	if err := json.Unmarshal(v, &x); err != nil {
		b.problem(field, "must be true or false")
		return false, false
	}
	return x, true
}

// checkAccountName: 1 to 100 characters, not blank, no control characters.
func checkAccountName(name string) string {
	switch n := utf8.RuneCountInString(name); {
	case n < 1 || strings.TrimSpace(name) == "":
		return "must not be empty"
	case n > maxAccountName:
		return "must be at most 100 characters long"
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "must not contain control characters"
	}
	return ""
}

// pathID parses the {id} path segment; an id that is not a UUID names nothing.
func pathID(r *http.Request, what string) (uuid.UUID, error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, core.E(core.CodeNotFound, "No %s with this id.", what)
	}
	return id, nil
}

// pathAndBody reads the path's id and the JSON body of an admin change.
func pathAndBody(r *http.Request, what string) (uuid.UUID, *body, error) {
	id, err := pathID(r, what)
	if err != nil {
		return uuid.Nil, nil, err
	}
	b, err := readBody(r)
	return id, b, err
}

// notFoundAs turns the store's ErrNotFound into NOT_FOUND naming what was missing.
func notFoundAs(err error, what string) error {
	if errors.Is(err, core.ErrNotFound) {
		return core.E(core.CodeNotFound, "No %s with this id.", what)
	}
	if err != nil && core.AsError(err) == nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	return err
}

type maintenanceBody struct {
	Maintenance bool `json:"maintenance"`
}

func (s *Server) adminGetMaintenance(w http.ResponseWriter, r *http.Request) error {
	on, err := s.store.Maintenance(r.Context())
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	writeJSON(w, http.StatusOK, maintenanceBody{on})
	return nil
}

func (s *Server) adminSetMaintenance(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	on, ok := b.boolean("maintenance")
	if !ok && !b.has("maintenance") {
		b.problem("maintenance", "is required")
	}
	if err := b.finish(); err != nil {
		return err
	}
	if err := s.store.SetMaintenance(r.Context(), on); err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	s.mcache.state.Store(nil) // this process sees the switch at once; others within their cache TTL
	s.log.InfoContext(r.Context(), "maintenance switched by admin", "request_id", core.RequestID(r.Context()), "on", on)
	writeJSON(w, http.StatusOK, maintenanceBody{on})
	return nil
}
