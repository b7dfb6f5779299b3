// Package e2e runs thumbforge as main runs it (the app on a real socket with a temp data
// dir) and talks to it over HTTP.
package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/api/apitest"
	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
)

// clock is a settable clock shared by the app and the test.
type clock = apptest.Clock

// env is one running thumbforge and an account with a key.
type env struct {
	t       testing.TB
	App     *app.App
	URL     string
	Key     string
	Account uuid.UUID
	Clock   *clock
	Images  *httptest.Server // an https server of test images, trusted by the app
	client  *http.Client
	mu      sync.Mutex
	routes  map[string]http.HandlerFunc
}

// option changes the app's configuration before it starts.
type option func(*app.Config)

// start runs the app on 127.0.0.1:0 with a temp data dir and an account holding credits.
func start(t testing.TB, credits int64, opts ...option) *env {
	t.Helper()
	e := &env{t: t, Clock: &clock{}, routes: map[string]http.HandlerFunc{}}
	e.Images = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		h := e.routes[r.URL.Path]
		e.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(e.Images.Close)

	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.Addr = "127.0.0.1:0"
	cfg.AllowPrivateFetch = true
	cfg.FetchTLS = &tls.Config{RootCAs: e.Images.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	cfg.Now = e.Clock.Now
	cfg.MaintenanceTTL = 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, o := range opts {
		o(&cfg)
	}
	a := apptest.StartApp(t, cfg)
	e.App, e.URL = a, a.URL()
	e.client = checkedClient(t)
	e.Account, e.Key = e.newAccount(credits)
	return e
}

// checkedClient is the harness's HTTP client: every request it sends and every answer it
// gets is checked against the OpenAPI document (internal/api/apitest).
func checkedClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := apitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: 60 * time.Second, Transport: c.Transport(nil, t.Errorf)}
}

// newAccount creates an account with API access, credits and a key.
func (e *env) newAccount(credits int64) (uuid.UUID, string) {
	e.t.Helper()
	return apptest.NewAccount(e.t, e.App.Store, "test", credits)
}

// serve makes the image server answer path with h.
func (e *env) serve(path string, h http.HandlerFunc) string {
	e.mu.Lock()
	e.routes[path] = h
	e.mu.Unlock()
	return e.Images.URL + path
}

// serveImage makes the image server answer path with img as JPEG, and returns its URL.
func (e *env) serveImage(path string, img image.Image) string {
	data := jpegBytes(e.t, img)
	return e.serve(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/jpeg")
		w.Write(data)
	})
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// do sends a JSON request with the key (none when key is "").
func (e *env) do(method, path, key string, body any) response {
	e.t.Helper()
	return e.doCtx(context.Background(), method, path, key, body)
}

func (e *env) doCtx(ctx context.Context, method, path, key string, body any) response {
	e.t.Helper()
	return e.doWith(ctx, method, path, key, nil, body)
}

// doWith sends a JSON request with the key (none when "") and extra headers.
func (e *env) doWith(ctx context.Context, method, path, key string, header http.Header, body any) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	url := e.URL + path
	if strings.HasPrefix(path, "http://") {
		url = path // another server of the same deployment
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return response{Status: -1, Raw: []byte(err.Error())}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// post sends a JSON POST with the env's key.
func (e *env) post(path string, body any) response {
	e.t.Helper()
	return e.do("POST", path, e.Key, body)
}

// code returns error.code of a response.
func (r response) code() string {
	errObj, _ := r.Body["error"].(map[string]any)
	s, _ := errObj["code"].(string)
	return s
}

// str returns a top-level string field.
func (r response) str(field string) string {
	s, _ := r.Body[field].(string)
	return s
}

// balance returns the account's balance.
func (e *env) balance(id uuid.UUID) int64 {
	e.t.Helper()
	a, err := e.App.Store.GetAccount(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Balance
}

// fetch GETs a URL (an output link) and returns status and body.
func (e *env) fetch(url string) (int, []byte, string) {
	e.t.Helper()
	resp, err := e.client.Get(url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header.Get("Content-Type")
}

// testImage is a deterministic picture with structure (gradient, a bright disc).
func testImage(w, h int, seed uint8) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := uint8(x * 255 / w)
			g := uint8(y * 255 / h)
			b := seed
			dx, dy := x-w*2/3, y-h/2
			if dx*dx+dy*dy < (h/5)*(h/5) {
				r, g, b = 250, 240, 40
			}
			img.Set(x, y, color.RGBA{r, g, b, 255})
		}
	}
	return img
}

func jpegBytes(t testing.TB, img image.Image) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dataURL returns img as a JPEG data URL.
func dataURL(t testing.TB, img image.Image) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpegBytes(t, img))
}

// decodeOutput fetches an output link and decodes the JPEG.
func (e *env) decodeOutput(url string) image.Image {
	e.t.Helper()
	status, body, ctype := e.fetch(url)
	if status != 200 || ctype != "image/jpeg" {
		e.t.Fatalf("output %s: status %d, type %q, body %.200s", url, status, ctype, body)
	}
	img, err := jpeg.Decode(bytes.NewReader(body))
	if err != nil {
		e.t.Fatalf("output is not a JPEG: %v", err)
	}
	return img
}
