package sdapifake

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// Config configures a fake sdapi server.
type Config struct {
	// Auth, "user:pass", makes every route require HTTP Basic auth (A1111's --api-auth).
	Auth string
	// Checkpoints are the models the server has; the first is loaded. Default
	// sd_xl_base_1.0.safetensors.
	Checkpoints []string
	// StepDelay is how long each sampling step takes.
	StepDelay time.Duration
	// Flavor is "a1111" (default) or "sdcpp" (stable-diffusion.cpp's sd-server subset).
	Flavor string
}

// Faults a test can arm with Fake.Arm.
const (
	Busy fakekit.Fault = "busy" // a generation answers 429 with Retry-After: 1
	Fail fakekit.Fault = "fail" // a generation answers 500 in the server's error shape
	Hang fakekit.Fault = "hang" // a generation never finishes until interrupted (or the fake closes)
	Down fakekit.Fault = "down" // every route answers 502, as a proxy in front of a dead backend
)

// Interrupt is a POST /sdapi/v1/interrupt the fake received.
type Interrupt struct {
	Current string // the task running when it arrived, "" if none
}

// Fake is an sdapi server for tests.
type Fake struct {
	cfg           Config
	fakekit.Log   // Requests, Count
	fakekit.Shots // Arm
	handler       http.Handler
	lock          sync.Mutex // A1111's queue_lock: one generation at a time

	mu          sync.Mutex
	current     string // running task id
	step, steps int
	interrupted bool
	pending     map[string]bool
	finished    []string
	interrupts  []Interrupt
	closed      chan struct{}
	closeOnce   sync.Once
}

// New returns a fake; serve it with httptest or Serve.
func New(cfg Config) *Fake {
	if len(cfg.Checkpoints) == 0 {
		cfg.Checkpoints = []string{"sd_xl_base_1.0.safetensors"}
	}
	if cfg.Flavor == "" {
		cfg.Flavor = "a1111"
	}
	f := &Fake{cfg: cfg, pending: map[string]bool{}, closed: make(chan struct{})}
	f.handler = f.Wrap(f.routes())
	return f
}

// Serve starts a fake on a loopback port and stops it when the test ends.
func Serve(t interface {
	Helper()
	Cleanup(func())
}, cfg Config) (*Fake, *httptest.Server) {
	t.Helper()
	f := New(cfg)
	return f, fakekit.Start(t, f, f.Close)
}

// ServeHTTP answers one request.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) { f.handler.ServeHTTP(w, r) }

// Close ends hangs so a test can stop the server.
func (f *Fake) Close() { f.closeOnce.Do(func() { close(f.closed) }) }

// Interrupts returns the interrupts received.
func (f *Fake) Interrupts() []Interrupt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Interrupt(nil), f.interrupts...)
}

// Idle reports that nothing runs and nothing waits.
func (f *Fake) Idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current == "" && len(f.pending) == 0
}

// Current returns the task running now, "" when idle.
func (f *Fake) Current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current
}

func (f *Fake) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sdapi/v1/txt2img", func(w http.ResponseWriter, r *http.Request) { f.generate(w, r, false) })
	mux.HandleFunc("POST /sdapi/v1/img2img", func(w http.ResponseWriter, r *http.Request) { f.generate(w, r, true) })
	mux.HandleFunc("GET /sdapi/v1/options", f.options)
	mux.HandleFunc("GET /sdapi/v1/sd-models", f.models)
	if f.cfg.Flavor != "sdcpp" {
		mux.HandleFunc("POST /sdapi/v1/interrupt", f.interrupt)
		mux.HandleFunc("GET /sdapi/v1/progress", f.progress)
		mux.HandleFunc("POST /internal/progress", f.taskProgress)
	}
	return f.Unless(Down, f.guard(mux))
}

// guard applies Basic auth.
func (f *Fake) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.cfg.Auth != "" {
			user, pass, ok := r.BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(user+":"+pass), []byte(f.cfg.Auth)) != 1 {
				f.fail(w, http.StatusUnauthorized, "HTTPException", "Incorrect username or password")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// fail answers an error in the flavor's shape.
func (f *Fake) fail(w http.ResponseWriter, status int, typ, detail string) {
	if f.cfg.Flavor == "sdcpp" {
		writeJSON(w, status, map[string]any{"error": detail})
		return
	}
	writeJSON(w, status, map[string]any{"error": typ, "detail": detail, "body": "",
		"errors": fmt.Sprintf("%d: %s", status, detail)})
}

// generate is txt2img / img2img: validate, wait for the lock, sample, answer.
func (f *Fake) generate(w http.ResponseWriter, r *http.Request, img2img bool) {
	body, _ := io.ReadAll(r.Body)
	req, probs := decodeRequest(body, img2img)
	if len(probs) > 0 {
		if f.cfg.Flavor == "sdcpp" {
			f.fail(w, http.StatusBadRequest, "", "invalid params: "+describe(probs))
			return
		}
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": probs})
		return
	}
	if s := str(req, "sampler_name"); s != "" && !samplers[s] && f.cfg.Flavor != "sdcpp" {
		f.fail(w, http.StatusNotFound, "HTTPException", "Sampler not found")
		return
	}
	job, err := newJob(req, img2img)
	if err != nil {
		f.fail(w, err.status, "HTTPException", err.detail)
		return
	}
	if f.Take(Busy) {
		w.Header().Set("Retry-After", "1")
		f.fail(w, http.StatusTooManyRequests, "HTTPException", "job queue is full")
		return
	}
	task := str(req, "force_task_id")
	if task == "" {
		task = fmt.Sprintf("task(%x)", randomBytes(8))
	}
	f.mu.Lock()
	f.pending[task] = true
	f.mu.Unlock()

	f.lock.Lock()
	defer f.lock.Unlock()
	f.mu.Lock()
	delete(f.pending, task)
	f.current, f.step, f.steps, f.interrupted = task, 0, job.steps, false
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.current = ""
		f.finished = append(f.finished, task)
		f.mu.Unlock()
	}()

	if f.Take(Fail) {
		f.fail(w, http.StatusInternalServerError, "RuntimeError", "CUDA error: out of memory (injected by the fake)")
		return
	}
	done := f.sample(r, job.steps)
	img := job.paint(float64(done) / float64(job.steps))
	info, _ := json.Marshal(map[string]any{"prompt": job.prompt, "all_prompts": []string{job.prompt},
		"negative_prompt": str(req, "negative_prompt"), "seed": job.seed, "all_seeds": []int64{job.seed},
		"width": job.w, "height": job.h, "steps": job.steps, "sampler_name": str(req, "sampler_name"),
		"denoising_strength": job.denoise, "sd_model_name": f.modelFor(req), "version": "fake"})
	params := map[string]any{}
	for k, v := range req {
		if k != "init_images" && k != "mask" {
			params[k] = v
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"images":     []string{base64.StdEncoding.EncodeToString(fakekit.EncodePNG(img))},
		"parameters": params,
		"info":       string(info),
	})
}

// sample takes the steps, stopping early on an interrupt, a hang's end or a client gone;
// it returns how many steps ran.
func (f *Fake) sample(r *http.Request, steps int) int {
	f.mu.Lock()
	delay := f.cfg.StepDelay
	f.mu.Unlock()
	hang := f.Take(Hang)
	for i := 1; i <= steps; i++ {
		for hang && !f.isInterrupted() {
			select {
			case <-f.closed:
				return i - 1
			case <-time.After(5 * time.Millisecond):
			}
		}
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-f.closed:
			}
		}
		if f.isInterrupted() {
			return i - 1
		}
		f.mu.Lock()
		f.step = i
		f.mu.Unlock()
	}
	return steps
}

func (f *Fake) isInterrupted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.interrupted
}

// modelFor is the checkpoint a request runs on: its override if the server has it.
func (f *Fake) modelFor(req map[string]any) string {
	if o, ok := req["override_settings"].(map[string]any); ok {
		if name, ok := o["sd_model_checkpoint"].(string); ok {
			for _, c := range f.cfg.Checkpoints {
				if name == c || strings.HasPrefix(name, c) {
					return c
				}
			}
		}
	}
	return f.cfg.Checkpoints[0]
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
