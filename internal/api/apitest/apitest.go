// Package apitest checks HTTP exchanges against the API's OpenAPI document
// (api.OpenAPI), so tests that talk to thumbforge keep the document true. It is used by
// tests only: kin-openapi is not linked into the binary.
//
// The document is OpenAPI 3.1; kin-openapi (v0.152) validates 3.1 documents with a JSON
// Schema 2020-12 validator, so the exchanges are checked against the 3.1 document itself,
// not against the 3.0 rendering served for client generators.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"thumbforge/internal/api"
)

// Checker validates requests and answers against the document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	loadOnce sync.Once
	loaded   *Checker
	loadErr  error
)

// Load parses the document once per process.
func Load() (*Checker, error) {
	loadOnce.Do(func() {
		// The reference page is HTML; kin-openapi reads only JSON and plain text unless told.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		l := openapi3.NewLoader()
		doc, err := l.LoadFromData(api.OpenAPI)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err != nil {
			loadErr = fmt.Errorf("apitest: the OpenAPI document: %w", err)
			return
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			loadErr = fmt.Errorf("apitest: router: %w", err)
			return
		}
		loaded = &Checker{doc: doc, router: router}
	})
	return loaded, loadErr
}

// apiPrefixes are the paths whose every route must be in the document.
var apiPrefixes = []string{"/v1/", "/v2/", "/admin/api/"}

// Transport returns a RoundTripper that sends through base (nil: the default transport)
// and reports through report every disagreement between an exchange and the document:
//
//   - an answer that does not match the document (an undeclared status, a body or a
//     required header that does not match the declared one);
//   - a request the document refuses that the server accepted (a 2xx answer); a request
//     the document refuses and the server refuses too is what a test of bad input sends;
//   - a request under /v1/, /v2/ or /admin/api/ that no operation of the document matches
//     and that the server answered with anything but 404.
func (c *Checker) Transport(base http.RoundTripper, report func(format string, args ...any)) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{c: c, base: base, report: report}
}

type transport struct {
	c      *Checker
	base   http.RoundTripper
	report func(format string, args ...any)
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	check := req.Clone(context.Background())
	check.Body = io.NopCloser(bytes.NewReader(body))
	route, params, findErr := t.c.router.FindRoute(check)
	var in *openapi3filter.RequestValidationInput
	var reqErr error
	if findErr == nil {
		in = &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route,
			Options: &openapi3filter.Options{MultiError: true, SkipSettingDefaults: true, AuthenticationFunc: authenticate}}
		reqErr = openapi3filter.ValidateRequest(context.Background(), in)
	}

	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	if err != nil {
		return resp, nil // the caller sees the short body; nothing to check
	}
	what := req.Method + " " + req.URL.Path
	if findErr != nil {
		if isAPIPath(req.URL.Path) && resp.StatusCode != http.StatusNotFound {
			t.report("openapi: %s is not in the document, yet it answered %d (add it to internal/api/openapi.json)", what, resp.StatusCode)
		}
		return resp, nil
	}
	if reqErr != nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		t.report("openapi: %s: the document refuses this request, the server answered %d: %v\nrequest: %.300s", what, resp.StatusCode, reqErr, body)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true}}
	out.SetBodyBytes(answer)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.report("openapi: %s answered %d, which the document does not describe: %v\nanswer: %.500s", what, resp.StatusCode, err, answer)
	}
	return resp, nil
}

func isAPIPath(p string) bool {
	for _, prefix := range apiPrefixes {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// authenticate checks that the credentials a security scheme names were sent; whether
// they are good is the server's business.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	s := in.SecurityScheme
	switch {
	case s.Type == "apiKey" && s.In == "header" && h.Get(s.Name) == "":
		return fmt.Errorf("no %s header", s.Name)
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer") && !strings.HasPrefix(h.Get("Authorization"), "Bearer "):
		return errors.New("no bearer token")
	}
	return nil
}

// ValidateWebhook checks a webhook delivery's body against the document's description of
// its event (the 3.1 document's webhooks, one per event type).
func (c *Checker) ValidateWebhook(eventType string, body []byte) error {
	item := c.doc.Webhooks[eventType]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return fmt.Errorf("apitest: the document describes no %q webhook", eventType)
	}
	mt := item.Post.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return fmt.Errorf("apitest: the %q webhook has no JSON body", eventType)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}
