package apidocs

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The vendored script, byte for byte what npm's rapidoc@9.3.8 ships (static/README.md).
const (
	gzSum    = "b083f080f1727f019ccf551228392e0fc39a0be450ba19bca451ea31d6be2ec9"
	plainSum = "affbd173a65e870e18f392cca963113bcdafb6e50e88cd2f6a834a65b22db94d"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func get(t *testing.T, h http.Handler, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestServesThePageAndTheVendoredScript(t *testing.T) {
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	page := get(t, h, "/docs", nil)
	if page.Code != 200 || !strings.Contains(page.Body.String(), `<rapi-doc spec-url="/openapi.json"`) ||
		page.Header().Get("Content-Security-Policy") != CSP || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %v", page.Code, page.Header())
	}
	gz := get(t, h, "/docs/rapidoc-min.js", map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if gz.Header().Get("Content-Encoding") != "gzip" || sum(gz.Body.Bytes()) != gzSum {
		t.Fatalf("gzip script: %v, sum %s", gz.Header(), sum(gz.Body.Bytes()))
	}
	plain := get(t, h, "/docs/rapidoc-min.js", map[string]string{"Accept-Encoding": "gzip;q=0"})
	if plain.Header().Get("Content-Encoding") != "" || sum(plain.Body.Bytes()) != plainSum {
		t.Fatalf("plain script: %v, sum %s", plain.Header(), sum(plain.Body.Bytes()))
	}
	if again := get(t, h, "/docs/rapidoc-min.js", map[string]string{"If-None-Match": gz.Header().Get("ETag")}); again.Code != http.StatusNotModified {
		t.Fatalf("revalidation: %d", again.Code)
	}
	for _, p := range []string{"/docs/LICENSE-rapidoc.txt", "/docs/rapidoc-min.js.LICENSE.txt"} {
		if w := get(t, h, p, nil); w.Code != 200 || !strings.Contains(w.Body.String(), "MIT") {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	if w := get(t, h, "/docs/nothing.js", nil); w.Code != 404 {
		t.Errorf("unknown asset: %d", w.Code)
	}
	if len(h.Patterns()) != 5 {
		t.Errorf("patterns: %v", h.Patterns())
	}
}
