package e2e

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/engines/enginetest/comfyfake"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/engines/enginetest/sdapifake"
	"thumbforge/internal/testutil"
)

// outputSize fetches an output link and decodes its size.
func outputSize(t *testing.T, url string) image.Point {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	img, _, err := image.Decode(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return img.Bounds().Size()
}

// TestServeProcessWithEngines runs `thumbforge serve --engine openai`, `--engine comfyui`
// and `--engine sdapi` as real processes against the fakes over real sockets, the keys in
// the environment (out of ps).
func TestServeProcessWithEngines(t *testing.T) {
	comfy, csrv := comfyfake.Serve(t, comfyfake.Config{Token: engineKey})
	sd, ssrv := sdapifake.Serve(t, sdapifake.Config{Auth: sdapiKey})
	oa, oaURL := openaiFake(t, openaifake.Config{})
	for _, tc := range []struct {
		engine, url, key string
		served           func() int
	}{
		{"openai", oaURL, engineKey, func() int { return oa.Count("POST", "/v1/images/generations") }},
		{"comfyui", csrv.URL, engineKey, func() int { return len(comfy.Prompts()) }},
		{"sdapi", ssrv.URL, sdapiKey, func() int { return sd.Count("POST", "/sdapi/v1/txt2img") }},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			s := testutil.StartServe(t, t.TempDir(), []string{"THUMBFORGE_ENGINE_KEY=" + tc.key},
				"--engine", tc.engine, "--engine-url", tc.url)
			status, body := s.Call(t, "POST", "/v2/thumbnail/text", map[string]any{"prompt": "A lighthouse in a storm", "model": "mdl_3", "format": "9:16"})
			if status != 200 {
				t.Fatalf("%d %v", status, body)
			}
			if got := outputSize(t, body["output"].(string)); got != (image.Point{720, 1280}) {
				t.Fatalf("output %v", got)
			}
			if tc.served() != 1 {
				t.Fatalf("the backend served %d requests, want 1", tc.served())
			}
		})
	}
}

// TestServeStopsOnBadWorkflow: a workflow file with a problem stops serve with a message
// naming the file and the problem.
func TestServeStopsOnBadWorkflow(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "persona.json"), []byte(`{"1": {"class_type": "ApplyPulid", "inputs": {"image": "{{face_image}}"}}}`), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Thumbforge(t), "serve", "--data", t.TempDir(), "--addr", testutil.FreeAddr(t),
		"--engine", "comfyui", "--engine-url", "http://127.0.0.1:1", "--engine-workflows", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("serve did not stop: %v", err)
	}
	for _, want := range []string{"persona.json", "unknown placeholder {{face_image}}", "must use {{face}}"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
