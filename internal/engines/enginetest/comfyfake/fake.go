package comfyfake

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// Config configures a fake ComfyUI server.
type Config struct {
	// Checkpoints are the checkpoint files the server has (CheckpointLoaderSimple's
	// options); default sd_xl_base_1.0.safetensors.
	Checkpoints []string
	// StepDelay is how long each sampler step takes; zero runs at once.
	StepDelay time.Duration
	// Token, when set, is required as "Authorization: Bearer <Token>" on every route,
	// as a ComfyUI behind an authenticating proxy (ComfyUI-Login) does.
	Token string
}

// Faults a test can arm with Fake.Arm.
const (
	Busy    fakekit.Fault = "busy"    // POST /prompt answers 429 with Retry-After: 1
	Fail    fakekit.Fault = "fail"    // the next KSampler raises: the prompt ends in execution_error
	Drop    fakekit.Fault = "drop"    // POST /prompt answers 200 but the prompt never runs nor reaches history
	Lose    fakekit.Fault = "lose"    // POST /prompt queues the prompt, then drops the connection unanswered
	Hang    fakekit.Fault = "hang"    // a sampler never finishes until interrupted
	Down    fakekit.Fault = "down"    // every route answers 502, as a proxy in front of a dead backend
	StallWS fakekit.Fault = "stallws" // sockets stop receiving events (the connection stays open)
)

// Fake is a ComfyUI server for tests.
type Fake struct {
	cfg           Config
	classes       map[string]*nodeClass
	fakekit.Log   // Requests, Count
	fakekit.Shots // Arm
	handler       http.Handler

	mu         sync.Mutex
	wake       *sync.Cond
	number     int
	pending    []*queueItem
	running    *queueItem
	history    map[string]map[string]any
	interrupt  bool // nodes.interrupt_processing's flag
	closed     bool
	files      map[string][]byte // "type/subfolder/name" -> bytes
	counters   map[string]int    // SaveImage counters per "type/subfolder/prefix"
	sockets    map[*socket]bool
	interrupts []Interrupt
	deleted    []string
	prompts    []Prompt
	stepDelay  time.Duration
	done       chan struct{}
}

// Interrupt is a POST /interrupt the fake received.
type Interrupt struct {
	PromptID string // "" for a global interrupt
	Hit      bool   // whether it stopped a running prompt
}

// Prompt is a graph the fake accepted into its queue.
type Prompt struct {
	ID       string
	ClientID string
	Graph    json.RawMessage
}

// queueItem is ComfyUI's queue tuple (number, prompt_id, prompt, extra_data, outputs).
type queueItem struct {
	number    float64
	seq       int
	id        string
	prompt    json.RawMessage
	extraData map[string]any
	outputs   []string
	graph     *graph
	values    map[string]map[string]any
	clientID  string
}

func (q *queueItem) tuple() []any {
	return []any{q.number, q.id, q.prompt, q.extraData, q.outputs}
}

// New starts a fake's queue worker; serve it with httptest or Serve.
func New(cfg Config) (*Fake, error) {
	if len(cfg.Checkpoints) == 0 {
		cfg.Checkpoints = []string{"sd_xl_base_1.0.safetensors"}
	}
	cls, err := classes()
	if err != nil {
		return nil, err
	}
	f := &Fake{cfg: cfg, classes: cls, history: map[string]map[string]any{}, files: map[string][]byte{},
		counters: map[string]int{}, sockets: map[*socket]bool{}, stepDelay: cfg.StepDelay, done: make(chan struct{})}
	f.wake = sync.NewCond(&f.mu)
	f.handler = f.Wrap(f.routes())
	go f.worker()
	return f, nil
}

// Serve starts a fake on a loopback port and stops it when the test ends.
func Serve(t interface {
	Helper()
	Fatal(...any)
	Cleanup(func())
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

// Close stops the worker; a running prompt is interrupted.
func (f *Fake) Close() {
	f.mu.Lock()
	if !f.closed {
		f.closed, f.interrupt = true, true
		close(f.done)
		f.wake.Broadcast()
	}
	f.mu.Unlock()
}

// SetStepDelay changes how long each sampler step takes.
func (f *Fake) SetStepDelay(d time.Duration) {
	f.mu.Lock()
	f.stepDelay = d
	f.mu.Unlock()
}

// Interrupts returns the POST /interrupt calls received.
func (f *Fake) Interrupts() []Interrupt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Interrupt(nil), f.interrupts...)
}

// Deleted returns the prompt ids named by POST /queue {"delete": [...]}.
func (f *Fake) Deleted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.deleted...)
}

// Prompts returns the prompts accepted into the queue.
func (f *Fake) Prompts() []Prompt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Prompt(nil), f.prompts...)
}

// Queue returns how many prompts are running and waiting.
func (f *Fake) Queue() (running, pending int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running != nil {
		running = 1
	}
	return running, len(f.pending)
}

// History returns the history entry of a prompt, nil while it has none.
func (f *Fake) History(id string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.history[id]
}

// File returns a stored file ("input", "output" or "temp"), nil if absent.
func (f *Fake) File(typ, subfolder, name string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.files[fileKey(typ, subfolder, name)]
}

func fileKey(typ, subfolder, name string) string { return typ + "/" + subfolder + "/" + name }

// enqueue puts an accepted prompt in the queue (PromptQueue.put).
func (f *Fake) enqueue(it *queueItem) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts = append(f.prompts, Prompt{ID: it.id, ClientID: it.clientID, Graph: it.prompt})
	if f.Take(Drop) {
		return
	}
	it.seq = len(f.prompts)
	f.pending = append(f.pending, it)
	sort.SliceStable(f.pending, func(i, j int) bool { return f.pending[i].number < f.pending[j].number })
	f.broadcastStatusLocked()
	f.wake.Broadcast()
}

// worker is main.py's prompt_worker: one prompt at a time, in number order.
func (f *Fake) worker() {
	for {
		f.mu.Lock()
		for len(f.pending) == 0 && !f.closed {
			f.wake.Wait()
		}
		if f.closed {
			f.mu.Unlock()
			return
		}
		it := f.pending[0]
		f.pending = f.pending[1:]
		f.running, f.interrupt = it, false
		f.mu.Unlock()

		f.execute(it)

		f.mu.Lock()
		f.running = nil
		f.broadcastStatusLocked()
		f.mu.Unlock()
	}
}

// execute runs a prompt and writes its history entry.
func (f *Fake) execute(it *queueItem) {
	ex := &execution{f: f, item: it, results: map[string][]any{}, ui: map[string]any{}, meta: map[string]any{}}
	var messages []any
	add := func(event string, data map[string]any) {
		data["timestamp"] = time.Now().UnixMilli()
		messages = append(messages, []any{event, data})
		f.event(it, event, data)
	}
	add("execution_start", map[string]any{"prompt_id": it.id})
	add("execution_cached", map[string]any{"nodes": []string{}, "prompt_id": it.id})
	err := ex.run()
	success := err == nil
	var exe *execError
	switch {
	case success:
		add("execution_success", map[string]any{"prompt_id": it.id})
	case errors.Is(err, errInterrupted):
		add("execution_interrupted", map[string]any{"prompt_id": it.id, "node_id": ex.failedAt,
			"node_type": it.graph.nodes[ex.failedAt].classType, "executed": nonNil(ex.executed)})
	case errors.As(err, &exe):
		add("execution_error", map[string]any{"prompt_id": it.id, "node_id": ex.failedAt,
			"node_type": it.graph.nodes[ex.failedAt].classType, "executed": nonNil(ex.executed),
			"exception_message": exe.msg, "exception_type": exe.typ, "traceback": []string{},
			"current_inputs": map[string]any{}, "current_outputs": []string{}})
	}
	status := "success"
	if !success {
		status = "error"
	}
	f.mu.Lock()
	f.history[it.id] = map[string]any{
		"prompt":  it.tuple(),
		"outputs": ex.ui,
		"status":  map[string]any{"status_str": status, "completed": success, "messages": messages},
		"meta":    ex.meta,
	}
	f.mu.Unlock()
	f.event(it, "executing", map[string]any{"node": nil, "prompt_id": it.id})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// interrupted reports the interrupt flag.
func (f *Fake) interrupted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.interrupt
}

// step takes one sampler step: the configured delay, a hang if armed, then the interrupt
// check ComfyUI's sampling callback makes.
func (f *Fake) step() error {
	f.mu.Lock()
	d := f.stepDelay
	f.mu.Unlock()
	if f.Take(Hang) {
		for !f.interrupted() {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if d > 0 {
		select {
		case <-time.After(d):
		case <-f.done:
		}
	}
	if f.interrupted() {
		return errInterrupted
	}
	return nil
}
