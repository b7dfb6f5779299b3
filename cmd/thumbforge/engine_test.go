package main

import (
	"strings"
	"testing"

	"thumbforge/internal/engines/enginetest/openaifake"
)

func TestEngineCheck(t *testing.T) {
	const key = "sk-check-secret"
	_, goodSrv := openaifake.Serve(t, openaifake.Config{Key: key})
	out, errs, code := cli(t, "engine", "check", "--engine", "openai", "--engine-url", goodSrv.URL+"/v1", "--engine-key", key)
	if code != 0 || !strings.Contains(out, "ok   ping") || !strings.Contains(out, "model gpt-image-1: listed") ||
		!strings.Contains(out, "the builtin does: faceswap") || !strings.Contains(out, "all 1 backends work") {
		t.Fatalf("check of a good backend: %d\n%s%s", code, out, errs)
	}
	out, errs, code = cli(t, "engine", "check", "--engine", "openai", "--engine-url", goodSrv.URL+"/v1,http://127.0.0.1:1/v1", "--engine-key", key)
	if code != 1 || !strings.Contains(out, "FAIL ping") || !strings.Contains(errs, "1 of 2 backends do not work") {
		t.Fatalf("check with a dead backend: %d\n%s%s", code, out, errs)
	}
	out, _, code = cli(t, "engine", "check", "--engine", "openai", "--engine-url", goodSrv.URL+"/v1", "--engine-key", "sk-wrong-"+key)
	if code != 1 || !strings.Contains(out, "401") || strings.Contains(out, key) {
		t.Fatalf("check with a wrong key (which must not be printed): %d\n%s", code, out)
	}
	if _, errs, code := cli(t, "engine", "check", "--engine", "nope"); code != 1 || !strings.Contains(errs, "unknown engine") {
		t.Fatalf("unknown engine: %d %s", code, errs)
	}
	if out, _, code := cli(t, "engine", "check"); code != 0 || !strings.Contains(out, "builtin") {
		t.Fatalf("builtin: %d %s", code, out)
	}
}

func TestEngineEnvMustParse(t *testing.T) {
	t.Setenv("THUMBFORGE_ENGINE_CONCURRENCY", "four")
	if _, errs, code := cli(t, "engine", "check"); code != 1 || !strings.Contains(errs, "THUMBFORGE_ENGINE_CONCURRENCY") {
		t.Fatalf("%d %s", code, errs)
	}
	if _, errs, code := cli(t, "serve", "--data", t.TempDir()); code != 1 || !strings.Contains(errs, "THUMBFORGE_ENGINE_CONCURRENCY") {
		t.Fatalf("serve: %d %s", code, errs)
	}
}
