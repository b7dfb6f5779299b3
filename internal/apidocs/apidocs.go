// Package apidocs serves /docs: the API's OpenAPI document rendered in the browser by
// RapiDoc, a web component vendored from the npm registry (static/README.md) and embedded
// in the binary, so the page works offline and loads nothing from elsewhere.
package apidocs

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// CSP is the page's Content-Security-Policy: scripts from this server only (no inline
// script, no eval), nothing from another origin. Styles must allow 'unsafe-inline':
// RapiDoc's templates carry style attributes (over a thousand on this document) and add
// a style element, which a strict style-src blocks, leaving the page unusable. Every
// string the page shows comes from our own document; no script can run from it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one file served under /docs/.
type asset struct {
	name, ctype string
	data        []byte // as stored: gzip for the script
	gzipped     bool
	etag        string
}

// Handler serves the page and its assets.
type Handler struct {
	assets map[string]*asset // by URL path
	once   sync.Once
	plain  []byte // the script decompressed, for the rare client that takes no gzip
	err    error
}

// New loads the embedded files.
func New() (*Handler, error) {
	h := &Handler{assets: map[string]*asset{}}
	for _, f := range []struct{ path, file, ctype string }{
		{"/docs", "index.html", "text/html; charset=utf-8"},
		{"/docs/docs.css", "docs.css", "text/css; charset=utf-8"},
		{"/docs/rapidoc-min.js", "rapidoc-min.js.gz", "text/javascript; charset=utf-8"},
		{"/docs/LICENSE-rapidoc.txt", "LICENSE-rapidoc.txt", "text/plain; charset=utf-8"},
		{"/docs/rapidoc-min.js.LICENSE.txt", "rapidoc-min.js.LICENSE.txt", "text/plain; charset=utf-8"},
	} {
		data, err := static.ReadFile("static/" + f.file)
		if err != nil {
			return nil, fmt.Errorf("apidocs: %w", err)
		}
		sum := sha256.Sum256(data)
		h.assets[f.path] = &asset{name: f.file, ctype: f.ctype, data: data, gzipped: strings.HasSuffix(f.file, ".gz"),
			etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return h, nil
}

// Patterns are the mux patterns the handler serves.
func (h *Handler) Patterns() []string {
	out := make([]string, 0, len(h.assets))
	for p := range h.assets {
		out = append(out, "GET "+p)
	}
	return out
}

// ServeHTTP serves one of the files; the page carries its CSP.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("Cache-Control", "no-cache") // revalidated by ETag: a new binary may carry a new version
	hd.Set("ETag", a.etag)
	if a.gzipped {
		hd.Add("Vary", "Accept-Encoding")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && match == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	data := a.data
	switch {
	case a.gzipped && acceptsGzip(r):
		hd.Set("Content-Encoding", "gzip")
	case a.gzipped:
		plain, err := h.gunzipped(a)
		if err != nil {
			http.Error(w, "asset unavailable", http.StatusInternalServerError)
			return
		}
		data = plain
	}
	w.Write(data)
}

// gunzipped returns the script decompressed, once.
func (h *Handler) gunzipped(a *asset) ([]byte, error) {
	h.once.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(a.data))
		if err != nil {
			h.err = err
			return
		}
		h.plain, h.err = io.ReadAll(zr)
	})
	return h.plain, h.err
}

// acceptsGzip reports whether the client takes gzip (every browser does).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
