package e2e

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"thumbforge/internal/api"
)

// TestOpenAPIAndOperationalRoutes calls the routes of the document that are not API
// routes through the harness's checked client, so their answers are validated too.
func TestOpenAPIAndOperationalRoutes(t *testing.T) {
	e := start(t, 0)
	r := e.do("GET", "/openapi.json", "", nil)
	if r.Status != 200 || !bytes.Equal(r.Raw, api.OpenAPI) || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("/openapi.json: %d, %d bytes", r.Status, len(r.Raw))
	}
	r = e.do("GET", "/openapi-3.0.json", "", nil)
	if r.Status != 200 || r.str("openapi") != "3.0.3" {
		t.Fatalf("/openapi-3.0.json: %d %.200s", r.Status, r.Raw)
	}
	var paths struct{ Paths map[string]json.RawMessage }
	if json.Unmarshal(r.Raw, &paths) != nil || len(paths.Paths) < 30 {
		t.Fatalf("/openapi-3.0.json paths: %d", len(paths.Paths))
	}
	r = e.do("GET", "/docs", "", nil)
	if r.Status != 200 || !strings.Contains(string(r.Raw), "<rapi-doc") || !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("/docs: %d %v", r.Status, r.Header)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		if r := e.do("GET", p, "", nil); r.Status != 200 {
			t.Errorf("%s: %d", p, r.Status)
		}
	}
	// The document needs no key, and neither maintenance nor a missing key changes that.
	e.App.Store.SetMaintenance(t.Context(), true)
	if r := e.do("GET", "/openapi.json", "", nil); r.Status != 200 {
		t.Errorf("/openapi.json in maintenance: %d", r.Status)
	}
}
