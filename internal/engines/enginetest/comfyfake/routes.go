package comfyfake

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// routes lists every route, each also under /api as ComfyUI registers them.
func (f *Fake) routes() http.Handler {
	mux := http.NewServeMux()
	for _, prefix := range []string{"", "/api"} {
		mux.HandleFunc("POST "+prefix+"/prompt", f.postPrompt)
		mux.HandleFunc("GET "+prefix+"/prompt", f.getPromptInfo)
		mux.HandleFunc("GET "+prefix+"/history/{id}", f.getHistory)
		mux.HandleFunc("GET "+prefix+"/queue", f.getQueue)
		mux.HandleFunc("POST "+prefix+"/queue", f.postQueue)
		mux.HandleFunc("POST "+prefix+"/interrupt", f.postInterrupt)
		mux.HandleFunc("POST "+prefix+"/upload/image", f.uploadImage)
		mux.HandleFunc("GET "+prefix+"/view", f.view)
		mux.HandleFunc("GET "+prefix+"/system_stats", f.systemStats)
		mux.HandleFunc("GET "+prefix+"/object_info", f.objectInfo)
		mux.HandleFunc("GET "+prefix+"/object_info/{class}", f.objectInfo)
		mux.HandleFunc("GET "+prefix+"/ws", f.serveWS)
	}
	return f.Unless(Down, f.guard(mux))
}

// guard applies the Bearer token of an authenticating proxy,
// and ComfyUI's origin_only_middleware (an Origin naming another host is refused).
func (f *Fake) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.cfg.Token != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(f.cfg.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", "Bearer")
				writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "Authentication required."})
				return
			}
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				http.Error(w, "403: Forbidden", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// postPrompt validates and queues a graph.
func (f *Fake) postPrompt(w http.ResponseWriter, r *http.Request) {
	if f.Take(Busy) {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "queue is full"})
		return
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "500 Internal Server Error\n\nServer got itself in trouble", http.StatusInternalServerError)
		return
	}
	f.mu.Lock()
	number := float64(f.number)
	if raw, ok := body["number"]; ok {
		json.Unmarshal(raw, &number)
	} else {
		var front bool
		json.Unmarshal(body["front"], &front)
		if front {
			number = -number
		}
		f.number++
	}
	f.mu.Unlock()
	raw, ok := body["prompt"]
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": apiError{Type: "no_prompt", Message: "No prompt provided",
			Details: "No prompt provided", ExtraInfo: map[string]any{}}, "node_errors": map[string]any{}})
		return
	}
	id := newUUID()
	if rawID, ok := body["prompt_id"]; ok {
		var s string
		if json.Unmarshal(rawID, &s) != nil || !canonicalUUID.MatchString(s) {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": apiError{Type: "invalid_prompt_id",
				Message: "Invalid prompt_id format", Details: "prompt_id must be a canonical lowercase UUID",
				ExtraInfo: map[string]any{}}, "node_errors": map[string]any{}})
			return
		}
		id = s
	}
	g, err := parseGraph(raw)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": apiError{Type: "invalid_prompt",
			Message: "Cannot execute because the prompt is not a graph.", Details: err.Error(), ExtraInfo: map[string]any{}},
			"node_errors": map[string]any{}})
		return
	}
	var partial []string
	json.Unmarshal(body["partial_execution_targets"], &partial)
	v := &validator{g: g, classes: f.classes, options: f.comboOptions, fileFound: f.inputExists}
	good, nodeErrors, top := v.prompt(partial)
	if top != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": top, "node_errors": nodeErrors})
		return
	}
	extra := map[string]any{}
	json.Unmarshal(body["extra_data"], &extra)
	var clientID string
	if c, ok := body["client_id"]; ok {
		var cid any
		json.Unmarshal(c, &cid)
		extra["client_id"] = cid
		clientID, _ = cid.(string)
	}
	it := &queueItem{number: number, id: id, prompt: raw, extraData: extra, outputs: good, graph: g, values: v.values, clientID: clientID}
	f.enqueue(it)
	if f.Take(Lose) {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt_id": id, "number": number, "node_errors": nodeErrors})
}

func (f *Fake) getPromptInfo(w http.ResponseWriter, r *http.Request) {
	_, pending := f.Queue()
	writeJSON(w, http.StatusOK, map[string]any{"exec_info": map[string]any{"queue_remaining": pending + f.runningCount()}})
}

func (f *Fake) runningCount() int {
	running, _ := f.Queue()
	return running
}

func (f *Fake) getHistory(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	out := map[string]any{}
	if h := f.History(id); h != nil {
		out[id] = h
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *Fake) getQueue(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	running, pending := []any{}, []any{}
	if f.running != nil {
		running = append(running, f.running.tuple())
	}
	for _, it := range f.pending {
		pending = append(pending, it.tuple())
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"queue_running": running, "queue_pending": pending})
}

// postQueue drops pending prompts: {"clear": true} or {"delete": [ids]}.
func (f *Fake) postQueue(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Clear  bool     `json:"clear"`
		Delete []string `json:"delete"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "500 Internal Server Error\n\nServer got itself in trouble", http.StatusInternalServerError)
		return
	}
	f.mu.Lock()
	if body.Clear {
		f.pending = nil
	}
	for _, id := range body.Delete {
		f.deleted = append(f.deleted, id)
		for i, it := range f.pending {
			if it.id == id {
				f.pending = append(f.pending[:i], f.pending[i+1:]...)
				break
			}
		}
	}
	f.broadcastStatusLocked()
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// postInterrupt interrupts the running prompt: only if it is the one named, or whatever
// runs when none is named.
func (f *Fake) postInterrupt(w http.ResponseWriter, r *http.Request) {
	var body struct {
		PromptID string `json:"prompt_id"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body) // ComfyUI treats an unreadable body as {}
	f.mu.Lock()
	hit := body.PromptID == "" || (f.running != nil && f.running.id == body.PromptID)
	if hit {
		f.interrupt = true
	}
	f.interrupts = append(f.interrupts, Interrupt{PromptID: body.PromptID, Hit: hit && f.running != nil})
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (f *Fake) systemStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"system": map[string]any{"os": "posix", "ram_total": 33546305536, "ram_free": 20000000000,
			"comfyui_version": "0.3.64", "python_version": "3.12.3", "pytorch_version": "2.8.0+cu128",
			"embedded_python": false, "argv": []string{"main.py", "--listen"}},
		"devices": []any{map[string]any{"name": "cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync", "type": "cuda",
			"index": 0, "vram_total": 25393692672, "vram_free": 24000000000,
			"torch_vram_total": 0, "torch_vram_free": 0}},
	})
}

func (f *Fake) objectInfo(w http.ResponseWriter, r *http.Request) {
	all := objectInfo(f.comboOptions)
	if class := r.PathValue("class"); class != "" {
		out := map[string]any{}
		if c, ok := all[class]; ok {
			out[class] = c
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	writeJSON(w, http.StatusOK, all)
}

// comboOptions fills the combos that depend on the server: checkpoints and input files.
func (f *Fake) comboOptions(class, input string) []any {
	var out []any
	if class == "CheckpointLoaderSimple" {
		for _, c := range f.cfg.Checkpoints {
			out = append(out, c)
		}
		return out
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range sortedKeys(f.files) {
		if rest, ok := strings.CutPrefix(k, "input//"); ok {
			out = append(out, rest)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// broadcastStatusLocked tells every socket the queue length, as queue_updated does.
func (f *Fake) broadcastStatusLocked() {
	remaining := len(f.pending)
	if f.running != nil {
		remaining++
	}
	msg := map[string]any{"type": "status", "data": map[string]any{"status": map[string]any{"exec_info": map[string]any{"queue_remaining": remaining}}}}
	for s := range f.sockets {
		go s.send(msg)
	}
}

// event sends an execution event to the socket of the prompt's client (broadcast=False).
func (f *Fake) event(it *queueItem, typ string, data map[string]any) {
	if it.clientID == "" || f.Take(StallWS) {
		return
	}
	f.mu.Lock()
	var targets []*socket
	for s := range f.sockets {
		if s.sid == it.clientID {
			targets = append(targets, s)
		}
	}
	f.mu.Unlock()
	for _, s := range targets {
		s.send(map[string]any{"type": typ, "data": data})
	}
}
