package comfyui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"thumbforge/internal/engines"
)

// systemSummary is the version and first device of a /system_stats answer.
func systemSummary(data []byte) string {
	var s struct {
		System struct {
			Version string `json:"comfyui_version"`
		} `json:"system"`
		Devices []struct {
			Name string `json:"name"`
		} `json:"devices"`
	}
	if json.Unmarshal(data, &s) != nil {
		return "answers /system_stats"
	}
	out := "ComfyUI " + s.System.Version
	if len(s.Devices) > 0 {
		out += " on " + s.Devices[0].Name
	}
	return out
}

// checkNodes asks /object_info whether the server has every node class the workflows
// use (a custom node pack not installed shows here, not at the first request) and the
// checkpoint they load.
func (a *Backend) checkNodes(ctx context.Context) []engines.Check {
	data, err := a.b.do(ctx, http.MethodGet, "/object_info", nil, "", nil)
	if err != nil {
		return []engines.Check{{Name: "nodes", Detail: "cannot read /object_info: " + err.Error()}}
	}
	var info map[string]struct {
		Input struct {
			Required map[string][]json.RawMessage `json:"required"`
		} `json:"input"`
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return []engines.Check{{Name: "nodes", Detail: "unreadable /object_info"}}
	}
	var out []engines.Check
	usesCheckpoint := false
	for _, p := range Purposes {
		w := a.workflows[p]
		if w == nil {
			continue
		}
		var missing []string
		for _, c := range w.classes() {
			if _, ok := info[c]; !ok {
				missing = append(missing, c)
			}
		}
		usesCheckpoint = usesCheckpoint || w.Uses("checkpoint")
		c := engines.Check{Name: "nodes for " + string(p), OK: len(missing) == 0, Detail: "all installed"}
		if len(missing) > 0 {
			c.Detail = "missing node classes (install their custom node packs): " + strings.Join(missing, ", ")
		}
		out = append(out, c)
	}
	if usesCheckpoint {
		out = append(out, checkpointCheck(a.checkpoint, info["CheckpointLoaderSimple"].Input.Required["ckpt_name"]))
	}
	return out
}

// checkpointCheck looks for the checkpoint among CheckpointLoaderSimple's options.
func checkpointCheck(want string, spec []json.RawMessage) engines.Check {
	c := engines.Check{Name: "checkpoint " + want}
	var options []string
	if len(spec) == 0 || json.Unmarshal(spec[0], &options) != nil {
		c.Detail = "the server does not list its checkpoints"
		return c
	}
	for _, o := range options {
		if o == want {
			c.OK, c.Detail = true, "found"
			return c
		}
	}
	c.Detail = fmt.Sprintf("not among the server's %d checkpoints (set --engine-model to one of: %s)", len(options), clip(strings.Join(options, ", ")))
	return c
}

// classes lists the node classes a workflow uses.
func (w *Workflow) classes() []string {
	seen := map[string]bool{}
	for _, n := range w.graph {
		if ct, ok := n.(map[string]any)["class_type"].(string); ok {
			seen[ct] = true
		}
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
