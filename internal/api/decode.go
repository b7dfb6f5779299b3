package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"thumbforge/internal/core"
)

// MaxBodyBytes caps a request body: two 10 MB images as base64 data URLs and change.
const MaxBodyBytes = 30 << 20

// body is a JSON object being validated field by field. Every problem is collected so that
// a client sees all of them in one response.
type body struct {
	raw     map[string]json.RawMessage
	seen    map[string]bool
	details []core.Detail
}

// readBody reads and parses a JSON object. A body that is not one fails at once.
func readBody(r *http.Request) (*body, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parseBody(data)
}

// readAll reads a request body under the body cap (IMAGE_TOO_LARGE beyond it).
func readAll(r *http.Request) ([]byte, error) {
	data, err := readCapped(r.Body, r.ContentLength, MaxBodyBytes)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &core.Error{Code: core.CodeImageTooLarge, Message: "The request body is larger than 30 MB.",
				Details: []core.Detail{{Message: "request body too large"}}}
		}
		return nil, core.Wrap(core.CodeValidation, err, "The request body could not be read.")
	}
	return data, nil
}

// readCapped reads a body of at most max bytes into one buffer: of its announced length
// when there is one (no doubling growth and its garbage), else grown as it arrives.
func readCapped(rc io.ReadCloser, announced, max int64) ([]byte, error) {
	r := http.MaxBytesReader(nil, rc, max)
	if announced < 0 || announced > max {
		return io.ReadAll(r)
	}
	buf := make([]byte, announced)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	// The client may send more than it announced: that is a malformed request.
	if n, _ := r.Read(make([]byte, 1)); n > 0 {
		return nil, errors.New("the body is longer than its Content-Length")
	}
	return buf, nil
}

// parseBody parses data as a JSON object whose objects, at any depth, repeat no key.
func parseBody(data []byte) (*body, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, core.Invalid([]core.Detail{{Message: "the request body must be a JSON object"}})
	}
	if !utf8.Valid(data) {
		return nil, core.Invalid([]core.Detail{{Message: "the request body is not valid UTF-8"}})
	}
	// Unmarshalling into an empty struct validates the syntax and the top-level kind
	// without building a value.
	if err := json.Unmarshal(data, &struct{}{}); err != nil || data[0] != '{' {
		msg := "the request body must be a JSON object"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = "malformed JSON: " + se.Error()
		}
		return nil, core.Invalid([]core.Detail{{Message: msg}})
	}
	raw, dup := splitObject(data)
	if dup != "" {
		return nil, core.Invalid([]core.Detail{{Field: dup, Message: "appears more than once in its object"}})
	}
	return &body{raw: raw, seen: make(map[string]bool)}, nil
}

func (b *body) problem(field, msg string) {
	b.details = append(b.details, core.Detail{Field: field, Message: msg})
}

// has reports whether field was sent with a non-null value.
func (b *body) has(field string) bool {
	v, ok := b.raw[field]
	return ok && string(v) != "null"
}

// str reads an optional string field; a non-string is a problem.
func (b *body) str(field string) (string, bool) {
	b.seen[field] = true
	v, ok := b.raw[field]
	if !ok || string(v) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		b.problem(field, "must be a string")
		return "", false
	}
	return s, true
}

// required reads a string field that must be present.
func (b *body) required(field string) (string, bool) {
	s, ok := b.str(field)
	if !ok && !b.has(field) {
		b.problem(field, "is required")
	}
	return s, ok
}

// strs reads an optional array of strings.
func (b *body) strs(field string) ([]string, bool) {
	b.seen[field] = true
	v, ok := b.raw[field]
	if !ok || string(v) == "null" {
		return nil, false
	}
	var ss []string
	if err := json.Unmarshal(v, &ss); err != nil {
		b.problem(field, "must be an array of strings")
		return nil, false
	}
	return ss, true
}

// oneOf checks that s is one of the allowed values.
func (b *body) oneOf(field, s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	b.problem(field, "must be one of "+strings.Join(allowed, ", "))
	return false
}

// finish reports unknown properties and returns the collected problems as one error.
func (b *body) finish() error {
	var unknown []string
	for k := range b.raw {
		if !b.seen[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		b.problem(k, "unknown property")
	}
	if len(b.details) > 0 {
		return core.Invalid(b.details)
	}
	return nil
}
