package sdapifake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// interrupt stops whatever runs (A1111's interrupt is global).
func (f *Fake) interrupt(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.interrupts = append(f.interrupts, Interrupt{Current: f.current})
	if f.current != "" {
		f.interrupted = true
	}
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{})
}

// progress is GET /sdapi/v1/progress: the current job only.
func (f *Fake) progress(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var p float64
	var task any
	if f.current != "" {
		p, task = float64(f.step)/float64(max(f.steps, 1)), f.current
	}
	writeJSON(w, http.StatusOK, map[string]any{"progress": p, "eta_relative": 0,
		"state": map[string]any{"skipped": false, "interrupted": f.interrupted, "job": "", "job_count": boolInt(f.current != ""),
			"job_timestamp": "0", "job_no": 0, "sampling_step": f.step, "sampling_steps": f.steps},
		"current_image": nil, "textinfo": nil, "current_task": task})
}

// taskProgress is POST /internal/progress {id_task}: one task's state.
func (f *Fake) taskProgress(w http.ResponseWriter, r *http.Request) {
	var req struct {
		IDTask string `json:"id_task"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	defer f.mu.Unlock()
	active := req.IDTask != "" && req.IDTask == f.current
	completed := false
	for _, t := range f.finished {
		completed = completed || t == req.IDTask
	}
	var p any
	if active {
		p = float64(f.step) / float64(max(f.steps, 1))
	}
	writeJSON(w, http.StatusOK, map[string]any{"active": active, "queued": f.pending[req.IDTask], "completed": completed,
		"progress": p, "eta": nil, "live_preview": nil, "id_live_preview": -1, "textinfo": nil})
}

func (f *Fake) options(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"sd_model_checkpoint": f.cfg.Checkpoints[0], "samples_format": "png",
		"sd_checkpoint_hash": "31e35c80fc4829d14f90153f4c74cd59c90b779f6afe05a74cd6120b893f7e5b"})
}

func (f *Fake) models(w http.ResponseWriter, r *http.Request) {
	var out []any
	for _, c := range f.cfg.Checkpoints {
		out = append(out, map[string]any{"title": c, "model_name": strings.TrimSuffix(c, ".safetensors"),
			"hash": nil, "sha256": nil, "filename": "/models/Stable-diffusion/" + c, "config": nil})
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
