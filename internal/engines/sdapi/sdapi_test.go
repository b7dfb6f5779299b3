package sdapi

import (
	"context"
	"encoding/json"
	"image"
	"strings"
	"testing"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/fakekit"
	"thumbforge/internal/engines/enginetest/sdapifake"
)

func newBackend(t *testing.T, cfg sdapifake.Config, key, model string) (*Backend, *sdapifake.Fake) {
	t.Helper()
	f, srv := sdapifake.Serve(t, cfg)
	b, err := New(engines.BackendConfig{URL: srv.URL, Key: key, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return b.(*Backend), f
}

// lastBody decodes the JSON body of the fake's last request to path.
func lastBody(t *testing.T, f *sdapifake.Fake, path string) map[string]any {
	t.Helper()
	var body map[string]any
	for _, r := range f.Requests() {
		if r.Path == path {
			body = nil
			json.Unmarshal(r.Body, &body)
		}
	}
	if body == nil {
		t.Fatalf("no request to %s", path)
	}
	return body
}

// TestGenerateMapsRequests: text goes to txt2img, a reference to img2img with the
// weight's strength, an edit's mask along with it; the override and the key go along.
func TestGenerateMapsRequests(t *testing.T) {
	b, f := newBackend(t, sdapifake.Config{Auth: "u:p", Checkpoints: []string{"base.safetensors", "juggernautXL.safetensors"}}, "u:p", "juggernautXL.safetensors")
	ctx := context.Background()
	w, h := b.Size(core.Format9x16)
	req := &engines.Request{Op: engines.OpGenerate, Prompt: "a red fox", Negative: "text", Width: w, Height: h,
		Format: core.Format9x16, Tier: engines.TierOf("mdl_4_5"), Seed: 1<<40 + 5}
	if _, err := b.Generate(ctx, req); err != nil {
		t.Fatal(err)
	}
	body := lastBody(t, f, "/sdapi/v1/txt2img")
	if body["prompt"] != "a red fox" || body["width"] != 768.0 || body["height"] != 1344.0 || body["steps"] != float64(req.Tier.Steps) || body["seed"] != 5.0 {
		t.Errorf("txt2img body %v", body)
	}
	if o, _ := body["override_settings"].(map[string]any); o["sd_model_checkpoint"] != "juggernautXL.safetensors" {
		t.Errorf("override %v", body["override_settings"])
	}
	if id, _ := body["force_task_id"].(string); !strings.HasPrefix(id, "thumbforge-") {
		t.Errorf("task id %q", id)
	}

	req.Image = fakekit.Scene(1, "ref", w, h)
	req.Strength = engines.Strength(core.WeightHigh)
	if _, err := b.Generate(ctx, req); err != nil {
		t.Fatal(err)
	}
	body = lastBody(t, f, "/sdapi/v1/img2img")
	if body["denoising_strength"] != 0.35 || len(body["init_images"].([]any)) != 1 || body["mask"] != nil {
		t.Errorf("img2img body %v", keys(body))
	}

	mask := image.NewGray(image.Rect(0, 0, w, h))
	edit := &engines.Request{Op: engines.OpEdit, Prompt: "make it night", Width: w, Height: h, Format: core.Format9x16,
		Tier: engines.TierOf("mdl_3"), Image: req.Image, Mask: mask}
	if _, err := b.Generate(ctx, edit); err != nil {
		t.Fatal(err)
	}
	body = lastBody(t, f, "/sdapi/v1/img2img")
	if body["mask"] == nil || body["inpainting_fill"] != 1.0 || body["denoising_strength"] != 0.75 {
		t.Errorf("edit body %v", keys(body))
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k, v := range m {
		if s, ok := v.(string); ok && len(s) > 40 {
			v = s[:40] + "..."
		}
		out = append(out, k+"="+strings.TrimSpace(strings.ReplaceAll(jsonString(v), "\n", "")))
	}
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestKeyMustBeUserPass: a key without a colon is refused at start, never logged.
func TestKeyMustBeUserPass(t *testing.T) {
	_, err := New(engines.BackendConfig{URL: "http://127.0.0.1:7860", Key: "sk-secret"})
	if err == nil || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("err %v", err)
	}
}

// TestCheck: reachable, the override found or not, and whether cancel can interrupt.
func TestCheck(t *testing.T) {
	b, _ := newBackend(t, sdapifake.Config{}, "", "missing.safetensors")
	got := map[string]engines.Check{}
	for _, c := range b.Check(context.Background()) {
		got[c.Name] = c
	}
	if !got["reachable"].OK || got["checkpoint missing.safetensors"].OK || !got["cancel"].OK {
		t.Errorf("checks %+v", got)
	}
	cpp, _ := newBackend(t, sdapifake.Config{Flavor: "sdcpp"}, "", "")
	for _, c := range cpp.Check(context.Background()) {
		if c.Name == "cancel" && !strings.Contains(c.Detail, "cannot tell") {
			t.Errorf("sd.cpp cancel check: %+v", c)
		}
	}
}
