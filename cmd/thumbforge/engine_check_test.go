package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"thumbforge/internal/engines/enginetest/comfyfake"
	"thumbforge/internal/engines/enginetest/sdapifake"
)

func runCheck(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := engineCommand(context.Background(), append([]string{"check"}, args...), &out, &errOut)
	return out.String() + errOut.String(), err
}

// TestEngineCheckComfyUI: the server's version, the workflows, the node classes they
// need (a missing custom node pack is a failure) and the checkpoint; the key never
// printed.
func TestEngineCheckComfyUI(t *testing.T) {
	_, srv := comfyfake.Serve(t, comfyfake.Config{Token: "comfy-check-key"})
	out, err := runCheck(t, "--engine", "comfyui", "--engine-url", srv.URL, "--engine-key", "comfy-check-key")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"ok   reachable: ComfyUI 0.3.64", "ok   workflows: text (embedded text.json)", "ok   nodes for edit", "ok   checkpoint sd_xl_base_1.0.safetensors: found", "all 1 backends work"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "persona.json"), []byte(`{"1": {"class_type": "ApplyPulid", "inputs": {"image": "{{face}}"}},
		"2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "p"}}}`), 0o600)
	out, err = runCheck(t, "--engine", "comfyui", "--engine-url", srv.URL, "--engine-key", "comfy-check-key",
		"--engine-workflows", dir, "--engine-model", "flux1-dev.safetensors")
	if err == nil || !strings.Contains(out, "FAIL nodes for persona: missing node classes (install their custom node packs): ApplyPulid") ||
		!strings.Contains(out, "FAIL checkpoint flux1-dev.safetensors") || !strings.Contains(out, "persona") {
		t.Errorf("missing nodes and checkpoint not reported: %v\n%s", err, out)
	}
	if strings.Contains(out, "comfy-check-key") {
		t.Error("the key was printed")
	}
	os.WriteFile(filepath.Join(dir, "style.json"), []byte(`{"1": {"class_type": "X", "inputs": {}}}`), 0o600)
	if out, err = runCheck(t, "--engine", "comfyui", "--engine-url", srv.URL, "--engine-workflows", dir); err == nil ||
		!strings.Contains(out, "FAIL configuration") || !strings.Contains(out, "must use {{style}}") {
		t.Errorf("a bad workflow file: %v\n%s", err, out)
	}
	if _, err = runCheck(t, "--engine", "openai", "--engine-url", srv.URL, "--engine-workflows", dir); err == nil || !strings.Contains(err.Error(), "--engine-workflows is for the comfyui engine") {
		t.Errorf("workflows with openai: %v", err)
	}
}

// TestEngineCheckSDAPI: Basic auth, the checkpoint override and whether cancelled work
// can be interrupted.
func TestEngineCheckSDAPI(t *testing.T) {
	_, srv := sdapifake.Serve(t, sdapifake.Config{Auth: "user:pa55", Checkpoints: []string{"sd_xl_base_1.0.safetensors", "juggernautXL.safetensors"}})
	out, err := runCheck(t, "--engine", "sdapi", "--engine-url", srv.URL, "--engine-key", "user:pa55", "--engine-model", "juggernautXL.safetensors")
	if err != nil || !strings.Contains(out, "ok   checkpoint juggernautXL.safetensors: found") || !strings.Contains(out, "ok   cancel") {
		t.Errorf("%v\n%s", err, out)
	}
	if out, err = runCheck(t, "--engine", "sdapi", "--engine-url", srv.URL, "--engine-key", "user:wrong"); err == nil || !strings.Contains(out, "FAIL ping") {
		t.Errorf("wrong password: %v\n%s", err, out)
	}
	if strings.Contains(out, "pa55") || strings.Contains(out, "user:wrong") {
		t.Error("a key was printed")
	}
}
