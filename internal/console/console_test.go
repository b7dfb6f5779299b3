package console_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"thumbforge/internal/console"
	"thumbforge/internal/core"
)

// wantCSP is the policy every console response carries: nothing inline, nothing from
// elsewhere but images from the output links' origin.
var wantCSP = regexp.MustCompile(`^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http://127\.0\.0\.1:\d+; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$`)

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestPagesAndHeaders(t *testing.T) {
	s := startSite(t, 0)
	assets := regexp.MustCompile(`(?:src|href)="(/console/[^"]+)"`)
	seen := map[string]bool{}
	for _, path := range []string{"/", "/history", "/personas", "/titles", "/score", "/account", "/admin"} {
		resp, body := get(t, s.URL+path)
		h := resp.Header
		if resp.StatusCode != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !wantCSP.MatchString(h.Get("Content-Security-Policy")) ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, h)
		}
		// No inline script or style anywhere: the CSP would block it, so it would be a bug.
		if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]|\sstyle=|\son[a-z]+=`).MatchString(body) {
			t.Fatalf("%s has inline script, style or handler", path)
		}
		for _, m := range assets.FindAllStringSubmatch(body, -1) {
			seen[strings.ReplaceAll(m[1], "&amp;", "&")] = true
		}
	}
	for asset := range seen {
		resp, body := get(t, s.URL+asset)
		if resp.StatusCode != 200 || resp.Header.Get("ETag") == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") ||
			resp.Header.Get("Content-Security-Policy") == "" || len(body) == 0 {
			t.Fatalf("%s: %d %v", asset, resp.StatusCode, resp.Header)
		}
		req, _ := http.NewRequest("GET", s.URL+asset, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		if again, err := http.DefaultClient.Do(req); err != nil || again.StatusCode != http.StatusNotModified {
			t.Fatalf("%s revalidated: %v %v", asset, again, err)
		}
	}
	// A module imported without its version is revalidated, never cached for long.
	if resp, _ := get(t, s.URL+"/console/app.js"); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" ||
		resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("app.js: %d %v", resp.StatusCode, resp.Header)
	}
	for _, path := range []string{"/console/nothing.js", "/console/../go.mod", "/console/", "/admin/", "/nothing"} {
		if resp, body := get(t, s.URL+path); resp.StatusCode != 404 || strings.Contains(body, "module thumbforge") {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]console.Config{
		"no prices":          {},
		"origin not a URL":   {Prices: core.DefaultPrices(), ImageOrigins: []string{"::"}},
		"origin not http(s)": {Prices: core.DefaultPrices(), ImageOrigins: []string{"javascript:alert(1)"}},
		"origin with quote":  {Prices: core.DefaultPrices(), ImageOrigins: []string{"https://a'b"}},
	} {
		if _, err := console.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	h, err := console.New(console.Config{Prices: core.DefaultPrices(), ImageOrigins: []string{"https://bucket.s3.example.com/outputs/x.jpg?X-Amz-Signature=abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Patterns()) != 8 {
		t.Fatalf("patterns %q", h.Patterns())
	}
}

// TestScriptsNeverParseHTML keeps every user string out of HTML parsing: the scripts build
// the page with textContent and attribute setters only.
func TestScriptsNeverParseHTML(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("static", "*.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(['"](style|on)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := banned.Find(b); m != nil {
			t.Errorf("%s uses %s", f, m)
		}
	}
}
