// Package console is thumbforge's web console: pages for an account (generate, history,
// personas and styles, titles, score, account) and for the operator (/admin). The pages are
// html/template shells and small plain JavaScript embedded in the binary; every piece of
// data comes from the same public API any client calls (the account's key, or the admin
// token, kept in the browser's sessionStorage), so the console can do nothing the API
// refuses. No build step, no CDN, no inline script or style: a strict CSP holds.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"

	"thumbforge/internal/core"
)

//go:embed templates/*.html static
var files embed.FS

// Limits are the API's input limits the console checks before it uploads anything, so a
// user learns of a too-large file at once instead of after sending it.
type Limits struct {
	MaxImageBytes   int64    `json:"max_image_bytes"`
	MaxPixels       int      `json:"max_pixels"`
	MaxBodyBytes    int64    `json:"max_body_bytes"`
	MaxPrompt       int      `json:"max_prompt"`
	MaxName         int      `json:"max_name"`
	MaxInstructions int      `json:"max_instructions"`
	TrainingImages  int      `json:"training_images"`
	ReservedNames   []string `json:"reserved_names"`
}

// Config is what the console shows that only the server knows.
type Config struct {
	// Prices is the price table, shown next to each operation.
	Prices core.Prices
	Limits Limits
	// ImageOrigins are origins besides the console's own that output links point at
	// (the public URL, an S3 endpoint); the CSP lets images load from them.
	ImageOrigins []string
}

// Handler serves the console's pages and assets.
type Handler struct {
	pages  map[string]*template.Template // URL path -> page
	assets map[string]asset              // file name under static/ -> content
	csp    string
	data   pageData
}

type asset struct {
	body  []byte
	etag  string
	ctype string
}

// page is one screen of the console: its URL, template, title and script.
type page struct {
	Path, Template, Title, Script string
	// Nav is the label in the account console's navigation; empty for /admin.
	Nav string
}

var pageList = []page{
	{Path: "/", Template: "generate.html", Title: "Generate", Script: "generate.js", Nav: "Generate"},
	{Path: "/history", Template: "history.html", Title: "History", Script: "history.js", Nav: "History"},
	{Path: "/personas", Template: "personas.html", Title: "Personas & styles", Script: "personas.js", Nav: "Personas & styles"},
	{Path: "/titles", Template: "titles.html", Title: "Titles", Script: "titles.js", Nav: "Titles"},
	{Path: "/score", Template: "score.html", Title: "Score", Script: "score.js", Nav: "Score"},
	{Path: "/account", Template: "account.html", Title: "Account", Script: "account.js", Nav: "Account"},
	{Path: "/admin", Template: "admin.html", Title: "Operator", Script: "admin.js"},
}

// pageData is what every template renders: the page, the navigation and the server's
// prices and limits (JSON in data attributes, escaped by html/template).
type pageData struct {
	Page   page
	Nav    []page
	Prices string
	Limits string
}

// New parses the templates and loads the assets.
func New(cfg Config) (*Handler, error) {
	if cfg.Prices == nil {
		return nil, errors.New("console: a price table is required")
	}
	prices, err := json.Marshal(cfg.Prices)
	if err != nil {
		return nil, err
	}
	limits, err := json.Marshal(cfg.Limits)
	if err != nil {
		return nil, err
	}
	h := &Handler{pages: map[string]*template.Template{}, assets: map[string]asset{},
		data: pageData{Prices: string(prices), Limits: string(limits)}}
	for _, p := range pageList {
		if p.Nav != "" {
			h.data.Nav = append(h.data.Nav, p)
		}
	}
	if err := h.loadAssets(); err != nil {
		return nil, err
	}
	funcs := template.FuncMap{"asset": h.assetURL}
	for _, p := range pageList {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+p.Template)
		if err != nil {
			return nil, fmt.Errorf("console: %s: %w", p.Template, err)
		}
		h.pages[p.Path] = t
	}
	if h.csp, err = policy(cfg.ImageOrigins); err != nil {
		return nil, err
	}
	return h, nil
}

// Patterns lists the mux patterns the console answers.
func (h *Handler) Patterns() []string {
	out := []string{"GET /console/"}
	for _, p := range pageList {
		if p.Path == "/" {
			out = append(out, "GET /{$}")
		} else {
			out = append(out, "GET "+p.Path)
		}
	}
	return out
}

// ServeHTTP serves a page or an asset, with the security headers on both.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer") // output links carry signatures
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	if name, ok := strings.CutPrefix(r.URL.Path, "/console/"); ok {
		h.serveAsset(w, r, name)
		return
	}
	t, ok := h.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	var buf bytes.Buffer
	d := h.data
	for _, p := range pageList {
		if p.Path == r.URL.Path {
			d.Page = p
		}
	}
	if err := t.Execute(&buf, d); err != nil {
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return
	}
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	_, _ = w.Write(buf.Bytes())
}

// loadAssets reads every file under static/ once, with an ETag from its content.
func (h *Handler) loadAssets() error {
	return fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ctype := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
			".svg": "image/svg+xml", ".txt": "text/plain; charset=utf-8"}[path.Ext(p)]
		if ctype == "" {
			return fmt.Errorf("console: %s: no content type for this extension", p)
		}
		h.assets[strings.TrimPrefix(p, "static/")] = asset{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ctype}
		return nil
	})
}

// assetURL is the template function naming an asset with its content version, so a
// browser may keep it until the binary changes.
func (h *Handler) assetURL(name string) (string, error) {
	a, ok := h.assets[name]
	if !ok {
		return "", fmt.Errorf("console: no asset %q", name)
	}
	return "/console/" + name + "?v=" + strings.Trim(a.etag, `"`), nil
}

func (h *Handler) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := h.assets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("ETag", a.etag)
	if r.URL.Query().Get("v") == strings.Trim(a.etag, `"`) {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache") // modules import each other without the version
	}
	if r.Header.Get("If-None-Match") == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(a.body)
}

// hostPattern is a host[:port] that can stand in a CSP source as it is.
var hostPattern = regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$`)

// policy is the Content-Security-Policy: scripts, styles and API calls from the console's
// own origin only; images also from the output links' origins, data: (previews of files
// picked) and blob: (masks painted).
func policy(imageOrigins []string) (string, error) {
	img := []string{"'self'", "data:", "blob:"}
	for _, o := range imageOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !hostPattern.MatchString(u.Host) {
			return "", fmt.Errorf("console: image origin %q is not an http(s) origin", o)
		}
		img = append(img, u.Scheme+"://"+u.Host)
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src " + strings.Join(img, " ") +
		"; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'", nil
}
