package openaifake

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// Config configures a fake.
type Config struct {
	// Key, when set, is the only Bearer key accepted (401 invalid_api_key otherwise).
	Key string
	// Delay is how long every image request takes before answering.
	Delay time.Duration
	// Flavor is "openai" (default) or "sdcpp" (stable-diffusion.cpp's sd-server).
	Flavor string
	// Answer, when set, is the picture every valid image request gets back, whatever it
	// asked (encoded once per output format): benchmarks measure the client, not the
	// fake's painting.
	Answer image.Image
}

// Faults a test can arm with Fake.Arm.
const (
	Moderation fakekit.Fault = "moderation" // 400 moderation_blocked
	Busy       fakekit.Fault = "busy"       // 429 with Retry-After: 1
	Fail       fakekit.Fault = "fail"       // 500 server_error
	Hang       fakekit.Fault = "hang"       // no answer until the client goes away (or Close)
	Down       fakekit.Fault = "down"       // every route 502, as a proxy before a dead server
	Garbage    fakekit.Fault = "garbage"    // 200 whose b64_json is not an image
)

// Fake is an OpenAI Images API server for tests.
type Fake struct {
	cfg           Config
	fakekit.Log   // Requests, Count
	fakekit.Shots // Arm
	spec          *spec
	handler       http.Handler

	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	served      int // image answers sent
	abandoned   int // image requests whose client left before the answer
	files       map[string][]byte
	answers     map[string][]byte // Config.Answer encoded, by output format and compression
	closed      chan struct{}
	closeOnce   sync.Once
}

// New returns a fake; serve it with httptest or Serve.
func New(cfg Config) (*Fake, error) {
	s, err := loadSpec()
	if err != nil {
		return nil, err
	}
	if cfg.Flavor == "" {
		cfg.Flavor = "openai"
	}
	f := &Fake{cfg: cfg, spec: s, files: map[string][]byte{}, answers: map[string][]byte{}, closed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/images/generations", func(w http.ResponseWriter, r *http.Request) { f.image(w, r, false) })
	mux.HandleFunc("POST /v1/images/edits", func(w http.ResponseWriter, r *http.Request) { f.image(w, r, true) })
	mux.HandleFunc("GET /v1/models", f.models)
	mux.HandleFunc("GET /files/{name}", f.file)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.fail(w, &problem{status: http.StatusNotFound, message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"})
	})
	f.handler = f.Wrap(f.Unless(Down, f.auth(mux)))
	return f, nil
}

// Serve starts a fake on a loopback port until the test ends; the API base to configure
// is srv.URL + "/v1".
func Serve(t interface {
	Helper()
	Cleanup(func())
	Fatal(...any)
}, cfg Config) (*Fake, *httptest.Server) {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, fakekit.Start(t, f, f.Close)
}

// ServeHTTP answers one request.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) { f.handler.ServeHTTP(w, r) }

// Close ends hangs so the server can stop.
func (f *Fake) Close() { f.closeOnce.Do(func() { close(f.closed) }) }

// SetDelay changes how long image requests take.
func (f *Fake) SetDelay(d time.Duration) {
	f.mu.Lock()
	f.cfg.Delay = d
	f.mu.Unlock()
}

// Stats are counts of image requests.
type Stats struct {
	InFlight, MaxInFlight int
	Served                int // answered with an image
	Abandoned             int // the client left (cancelled, timed out) before the answer
}

// Stats returns the counts so far.
func (f *Fake) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return Stats{InFlight: f.inFlight, MaxInFlight: f.maxInFlight, Served: f.served, Abandoned: f.abandoned}
}

// auth checks the Bearer key (sd-server has none).
func (f *Fake) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.cfg.Key != "" && !strings.HasPrefix(r.URL.Path, "/files/") {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(f.cfg.Key)) != 1 {
				f.fail(w, &problem{status: http.StatusUnauthorized, code: "invalid_api_key",
					message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// fail answers an error in the flavor's shape.
func (f *Fake) fail(w http.ResponseWriter, p *problem) {
	if f.cfg.Flavor == "sdcpp" {
		writeJSON(w, p.status, map[string]any{"error": p.message})
		return
	}
	typ := "invalid_request_error"
	switch {
	case p.status >= 500:
		typ = "server_error"
	case p.code == "moderation_blocked":
		typ = "image_generation_user_error"
	case p.status == http.StatusTooManyRequests:
		typ = "requests"
	}
	e := map[string]any{"message": p.message, "type": typ, "param": nil, "code": nil}
	if p.param != "" {
		e["param"] = p.param
	}
	if p.code != "" {
		e["code"] = p.code
	}
	writeJSON(w, p.status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err) // the fake's own answers always marshal
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("X-Request-Id", fmt.Sprintf("req_%x", time.Now().UnixNano()))
	w.WriteHeader(status)
	w.Write(body)
}

// models lists the models, as GET /v1/models does.
func (f *Fake) models(w http.ResponseWriter, r *http.Request) {
	if _, p := f.spec.check(r, nil); p != nil {
		f.fail(w, p)
		return
	}
	ids := []string{"gpt-image-1", "gpt-image-1-mini", "gpt-image-1.5", "gpt-image-2", "dall-e-2", "dall-e-3"}
	owner := "system"
	if f.cfg.Flavor == "sdcpp" {
		ids, owner = []string{"sd-cpp-local"}, "local"
	}
	data := make([]map[string]any, len(ids))
	for i, id := range ids {
		data[i] = map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": owner}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// file serves a DALL-E answer's image URL.
func (f *Fake) file(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	data, ok := f.files[r.PathValue("name")]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(data)
}

// track counts an image request in flight until the returned func is called.
func (f *Fake) track() func() {
	f.mu.Lock()
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}
}

// wait sleeps the configured delay, or until the client goes away for a hang; it
// returns false when the client left first.
func (f *Fake) wait(r *http.Request, hang bool) bool {
	f.mu.Lock()
	d := f.cfg.Delay
	f.mu.Unlock()
	var after <-chan time.Time
	if !hang {
		if d <= 0 {
			return r.Context().Err() == nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-after:
		return true
	case <-r.Context().Done():
	case <-f.closed:
	}
	f.mu.Lock()
	f.abandoned++
	f.mu.Unlock()
	return false
}

// encodeB64 is the answer's b64_json of a picture.
func encodeB64(png []byte) string { return base64.StdEncoding.EncodeToString(png) }
