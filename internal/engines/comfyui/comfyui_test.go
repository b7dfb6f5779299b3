package comfyui

import (
	"context"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/comfyfake"
	"thumbforge/internal/engines/enginetest/fakekit"
)

// A persona workflow of core nodes only: txt2img, then the face pasted in a corner. It
// stands for PuLID & co. in tests: it proves {{face}} is uploaded and bound.
const personaJSON = `{
  "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "{{checkpoint}}"}},
  "5": {"class_type": "EmptyLatentImage", "inputs": {"width": "{{width}}", "height": "{{height}}", "batch_size": 1}},
  "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "{{prompt}}", "clip": ["4", 1]}},
  "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "{{negative_prompt}}", "clip": ["4", 1]}},
  "3": {"class_type": "KSampler", "inputs": {"seed": "{{seed}}", "steps": "{{steps}}", "cfg": 6.5, "sampler_name": "euler", "scheduler": "normal", "denoise": 1, "model": ["4", 0], "positive": ["6", 0], "negative": ["7", 0], "latent_image": ["5", 0]}},
  "8": {"class_type": "VAEDecode", "inputs": {"samples": ["3", 0], "vae": ["4", 2]}},
  "20": {"class_type": "LoadImage", "inputs": {"image": "{{face}}"}},
  "21": {"class_type": "ImageCompositeMasked", "inputs": {"destination": ["8", 0], "source": ["20", 0], "x": 0, "y": 0, "resize_source": false}},
  "9": {"class_type": "SaveImage", "inputs": {"filename_prefix": "persona", "images": ["21", 0]}}
}`

func newAdapter(t *testing.T, files map[string]string) (*Backend, *comfyfake.Fake) {
	t.Helper()
	f, srv := comfyfake.Serve(t, comfyfake.Config{})
	dir := ""
	if files != nil {
		dir = t.TempDir()
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := New(engines.BackendConfig{URL: srv.URL, Model: DefaultModel, Workflows: dir})
	if err != nil {
		t.Fatal(err)
	}
	a := b.(*Backend)
	a.b.poll = 10 * time.Millisecond // the fake answers at once
	return a, f
}

func request(op engines.Op, w, h int) *engines.Request {
	return &engines.Request{Op: op, Prompt: "a lighthouse", Negative: "text", Width: w, Height: h,
		Format: core.Format16x9, Tier: engines.TierOf("mdl_3"), Seed: 9}
}

// graphOf returns the last graph the fake accepted.
func graphOf(t *testing.T, f *comfyfake.Fake) map[string]map[string]any {
	t.Helper()
	p := f.Prompts()
	var g map[string]map[string]any
	if err := json.Unmarshal(p[len(p)-1].Graph, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func inputs(g map[string]map[string]any, id string) map[string]any {
	return g[id]["inputs"].(map[string]any)
}

// TestPurposes: each kind of request runs its workflow with its values bound.
func TestPurposes(t *testing.T) {
	a, f := newAdapter(t, map[string]string{"persona.json": personaJSON})
	if a.Caps() != engines.CapText|engines.CapReference|engines.CapEdit|engines.CapMask|engines.CapPersona {
		t.Fatalf("caps %s", a.Caps())
	}
	ctx := context.Background()
	w, h := a.Size(core.Format16x9)

	if _, err := a.Generate(ctx, request(engines.OpGenerate, w, h)); err != nil {
		t.Fatal(err)
	}
	g := graphOf(t, f)
	if inputs(g, "5")["width"] != 1344.0 || inputs(g, "3")["seed"] != 9.0 || inputs(g, "3")["steps"] != float64(engines.TierOf("mdl_3").Steps) ||
		inputs(g, "6")["text"] != "a lighthouse" || inputs(g, "4")["ckpt_name"] != DefaultModel {
		t.Errorf("text graph %v", g)
	}

	ref := request(engines.OpGenerate, w, h)
	ref.Image, ref.Strength = fakekit.Scene(1, "ref", w, h), 0.35
	if _, err := a.Generate(ctx, ref); err != nil {
		t.Fatal(err)
	}
	g = graphOf(t, f)
	if name, _ := inputs(g, "10")["image"].(string); inputs(g, "3")["denoise"] != 0.35 || !strings.HasPrefix(name, "thumbforge/tf-") {
		t.Errorf("image graph: denoise %v image %v", inputs(g, "3")["denoise"], inputs(g, "10")["image"])
	}

	for _, mask := range []*image.Gray{nil, image.NewGray(image.Rect(0, 0, w, h))} {
		edit := request(engines.OpEdit, w, h)
		edit.Image, edit.Mask = ref.Image, mask
		if _, err := a.Generate(ctx, edit); err != nil {
			t.Fatal(err)
		}
		g = graphOf(t, f)
		want := 0.55
		if mask != nil {
			want = 0.75
		}
		if inputs(g, "3")["denoise"] != want || inputs(g, "13")["image"] == nil {
			t.Errorf("edit (mask %v): denoise %v mask %v", mask != nil, inputs(g, "3")["denoise"], inputs(g, "13")["image"])
		}
	}

	p := request(engines.OpGenerate, w, h)
	face := fakekit.Scene(3, "face", 200, 240)
	p.Faces = []image.Image{face}
	data, err := a.Generate(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	pic, err := engines.DecodePicture(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := fakekit.ToRGBA(pic).RGBAAt(100, 100); got != face.RGBAAt(100, 100) {
		t.Errorf("the persona's face is not in the picture: %v vs %v", got, face.RGBAAt(100, 100))
	}
}

// TestSupportWorkflowFallsBack: an operator's text workflow that takes {{support}} serves
// requests with one; the others get the embedded default.
func TestSupportWorkflowFallsBack(t *testing.T) {
	support := strings.Replace(personaJSON, "{{face}}", "{{support}}", 1)
	a, f := newAdapter(t, map[string]string{"text.json": support, "image.json": strings.Replace(support, `"5": {"class_type": "EmptyLatentImage", "inputs": {"width": "{{width}}", "height": "{{height}}", "batch_size": 1}}`,
		`"5": {"class_type": "VAEEncode", "inputs": {"pixels": ["30", 0], "vae": ["4", 2]}}, "30": {"class_type": "LoadImage", "inputs": {"image": "{{image}}"}}`, 1)})
	if !a.Caps().Has(engines.CapSupport) {
		t.Fatalf("caps %s", a.Caps())
	}
	w, h := a.Size(core.Format1x1)
	req := request(engines.OpGenerate, w, h)
	if _, err := a.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if g := graphOf(t, f); g["20"] != nil {
		t.Error("a request without a support image ran the support workflow")
	}
	req.Support = fakekit.Scene(5, "support", 300, 300)
	if _, err := a.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if g := graphOf(t, f); g["20"] == nil {
		t.Error("a request with a support image did not run the support workflow")
	}
}

// TestBadWorkflowStopsNew: New fails with the file's problems.
func TestBadWorkflowStopsNew(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "style.json"), []byte(`{"1": {"class_type": "X", "inputs": {"i": "{{styl}}"}}}`), 0o600)
	_, err := New(engines.BackendConfig{URL: "http://127.0.0.1:8188", Workflows: dir})
	if err == nil || !strings.Contains(err.Error(), "style.json") || !strings.Contains(err.Error(), "unknown placeholder {{styl}}") {
		t.Fatalf("err %v", err)
	}
}

// TestCheckNamesMissingNodes: engine check reports node classes the server lacks and
// whether the checkpoint exists.
func TestCheckNamesMissingNodes(t *testing.T) {
	pulid := `{"1": {"class_type": "ApplyPulid", "inputs": {"image": "{{face}}"}}, "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "x"}}}`
	a, _ := newAdapter(t, map[string]string{"persona.json": pulid})
	got := map[string]engines.Check{}
	for _, c := range a.Check(context.Background()) {
		got[c.Name] = c
	}
	if !got["reachable"].OK || !got["nodes for text"].OK || got["nodes for persona"].OK || !strings.Contains(got["nodes for persona"].Detail, "ApplyPulid") {
		t.Errorf("checks %+v", got)
	}
	if !got["checkpoint "+DefaultModel].OK {
		t.Errorf("checkpoint check %+v", got["checkpoint "+DefaultModel])
	}
}
