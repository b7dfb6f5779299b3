package comfyui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseWorkflowRules(t *testing.T) {
	node := func(inputs string) string {
		return `{"1": {"class_type": "X", "inputs": ` + inputs + `}}`
	}
	cases := []struct {
		name string
		kind Purpose
		data string
		want string // substring of the error; "" for valid
	}{
		{"text ok", ForText, node(`{"text": "{{prompt}}", "seed": "{{ seed }}"}`), ""},
		{"not json", ForText, `{"1": `, "not valid JSON"},
		{"trailing text", ForText, node(`{"text": "{{prompt}}"}`) + ` x`, "text after the JSON"},
		{"ui format", ForText, `{"nodes": [], "links": []}`, "is not an object"},
		{"empty", ForText, `{}`, "no nodes"},
		{"no class_type", ForText, `{"1": {"inputs": {"text": "{{prompt}}"}}}`, "has no class_type"},
		{"no inputs", ForText, `{"1": {"class_type": "X"}}`, "has no inputs"},
		{"unknown placeholder", ForText, node(`{"text": "{{prompt}}", "x": "{{subject}}"}`), "unknown placeholder {{subject}}"},
		{"placeholder inside text", ForText, node(`{"text": "a photo of {{prompt}}"}`), "must be the whole string value"},
		{"missing prompt", ForText, node(`{"seed": "{{seed}}"}`), "must use {{prompt}}"},
		{"image in text", ForText, node(`{"text": "{{prompt}}", "image": "{{image}}"}`), "{{image}} cannot be filled"},
		{"edit needs image", ForEdit, node(`{"text": "{{prompt}}"}`), "must use {{image}}"},
		{"persona needs face", ForPersona, node(`{"text": "{{prompt}}"}`), "must use {{face}}"},
		{"style ok", ForStyle, node(`{"text": "{{prompt}}", "ref": "{{style}}", "i": "{{image}}", "d": "{{denoise}}"}`), ""},
		{"support in style", ForStyle, node(`{"ref": "{{style}}", "s": "{{support}}"}`), "{{support}} cannot be filled"},
		{"faceswap mask ok", ForFaceSwap, node(`{"t": "{{image}}", "f": "{{face}}", "m": "{{mask}}"}`), ""},
		{"every problem at once", ForText, `{"1": {"inputs": {"a": "{{nope}}"}}}`, "no class_type; node \"1\": unknown placeholder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkflow(tc.kind, "t.json", []byte(tc.data))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestBindWritesTypedValues: numbers become JSON numbers, text and image names strings,
// and nothing else in the graph changes.
func TestBindWritesTypedValues(t *testing.T) {
	w, err := ParseWorkflow(ForImage, "t.json", []byte(`{"3": {"class_type": "KSampler", "inputs": {
		"seed": "{{seed}}", "steps": "{{steps}}", "denoise": "{{denoise}}", "cfg": 6.5, "model": ["4", 0],
		"note": "{{ prompt }}", "img": "{{image}}", "w": "{{width}}", "h": "{{height}}"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.Bind(map[string]any{"seed": uint64(4294967295), "steps": 30, "denoise": 0.35, "prompt": `say "hi"`,
		"image": "thumbforge/tf-1.png", "width": 1344, "height": 768})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"3":{"class_type":"KSampler","inputs":{"cfg":6.5,"denoise":0.35,"h":768,"img":"thumbforge/tf-1.png","model":["4",0],"note":"say \"hi\"","seed":4294967295,"steps":30,"w":1344}}}`
	if string(g) != want {
		t.Errorf("bound\n%s\nwant\n%s", g, want)
	}
	if _, err := w.Bind(map[string]any{"seed": 1}); err == nil || !strings.Contains(err.Error(), "no value for") {
		t.Errorf("missing values: %v", err)
	}
	if _, err := w.Bind(map[string]any{"seed": "1", "steps": 1, "denoise": 0.5, "prompt": "", "image": "", "width": 1, "height": 1}); err == nil {
		t.Error("a string for {{seed}} was accepted")
	}
}

func TestLoadWorkflowsFromDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("persona.json", `{"1": {"class_type": "ApplyPulid", "inputs": {"image": "{{face}}", "t": "{{prompt}}"}}}`)
	write("README.md", "notes")
	ws, err := LoadWorkflows(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ws[ForPersona] == nil || ws[ForText] == nil || !strings.Contains(ws[ForText].Source, "embedded") {
		t.Errorf("loaded %v", ws)
	}
	write("text.json", `{"1": {"class_type": "X", "inputs": {}}}`)
	write("txt.json", `{}`)
	_, err = LoadWorkflows(dir)
	if err == nil || !strings.Contains(err.Error(), "txt.json is not a workflow name") || !strings.Contains(err.Error(), "text.json (text): must use {{prompt}}") {
		t.Errorf("bad dir: %v", err)
	}
	if _, err := LoadWorkflows(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing directory was accepted")
	}
}

// FuzzParseWorkflow: no input makes the parser panic, and what it accepts binds into
// valid JSON.
func FuzzParseWorkflow(f *testing.F) {
	for _, k := range []Purpose{ForText, ForImage, ForEdit} {
		b, _ := embedded.ReadFile("workflows/" + string(k) + ".json")
		f.Add(b)
	}
	f.Add([]byte(`{"1":{"class_type":"X","inputs":{"t":"{{prompt}}","l":[["{{seed}}"]]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkflow(ForText, "fuzz.json", data)
		if err != nil {
			return
		}
		vals := map[string]any{"prompt": "p", "negative_prompt": "n", "checkpoint": "c", "seed": 1, "width": 8,
			"height": 8, "steps": 1, "denoise": 0.5, "support": "s.png"}
		g, err := w.Bind(vals)
		if err != nil {
			t.Fatalf("accepted workflow does not bind: %v", err)
		}
		if !json.Valid(g) {
			t.Fatalf("bound graph is not JSON: %s", g)
		}
	})
}

// TestDocumentedWorkflows: the example workflows of docs/workflows (OPERATIONS.md) pass
// the checks serve applies, so the documentation cannot drift from the rules.
func TestDocumentedWorkflows(t *testing.T) {
	for file, p := range map[string]Purpose{
		"persona-pulid.json": ForPersona, "persona-instantid.json": ForPersona, "persona-faceid.json": ForPersona,
		"style-ipadapter.json": ForStyle, "faceswap-reactor.json": ForFaceSwap,
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "workflows", file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseWorkflow(p, file, data); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}
