package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"strings"
	"testing"

	"thumbforge/internal/app"
)

// TestInputRulesOverHTTP: the input rules of docs/API.md as a client meets them; every
// refusal is a 400 naming its field, and nothing is charged.
func TestInputRulesOverHTTP(t *testing.T) {
	e := start(t, 1000)
	before := e.balance(e.Account)
	refused := func(what, path string, body any, code, field string) {
		t.Helper()
		r := e.post(path, body)
		// v2 names the field in details[].field, v1 at the start of its details string.
		named := strings.Contains(string(r.Raw), `"field":"`+field+`"`) || strings.Contains(string(r.Raw), `"details":"`+field+`: `)
		if r.Status != 400 || r.code() != code || !named {
			t.Errorf("%s: %d %s, want 400 %s naming %s", what, r.Status, r.Raw, code, field)
		}
	}
	refused("duplicate key", "/v2/thumbnail/text", `{"prompt":"cats","model":"mdl_3","format":"1:1","prompt":"dogs"}`, "VALIDATION_ERROR", "prompt")
	refused("nested duplicate key", "/v2/custom/style", `{"name":"x","image_urls":["https://a/b.png","https://a/c.png",{"k":1,"k":2}]}`, "VALIDATION_ERROR", "image_urls[2].k")
	for _, p := range []string{"   ", "\u0000", "cats\u001b[2J"} {
		refused("thumbnail prompt "+p, "/v2/thumbnail/text", map[string]any{"prompt": p, "model": "mdl_3", "format": "1:1"}, "VALIDATION_ERROR", "prompt")
		refused("title prompt "+p, "/v2/title/text", map[string]any{"prompt": p}, "VALIDATION_ERROR", "prompt")
		refused("v1 thumbnail prompt "+p, "/v1/thumbnail", map[string]any{"prompt": p}, "BAD_REQUEST", "prompt")
	}
	refused("instructions with a link", "/v2/custom/style", map[string]any{"name": "Neon", "special_instructions": "see http://x",
		"image_urls": []string{"https://a/b.png", "https://a/c.png", "https://a/d.png"}}, "VALIDATION_ERROR", "special_instructions")
	for _, text := range []string{"see HTTP://x", "warm\u0000"} {
		r := e.do("PATCH", "/v2/custom/0190a8f2-0000-7000-8000-000000000000", e.Key, map[string]any{"special_instructions": text})
		if r.Status != 400 || r.code() != "VALIDATION_ERROR" || !strings.Contains(string(r.Raw), `"field":"special_instructions"`) {
			t.Errorf("PATCH %q: %d %s", text, r.Status, r.Raw)
		}
	}
	for _, size := range [][2]int{{100, 15}, {336, 16}} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, testImage(size[0], size[1], 1)); err != nil {
			t.Fatal(err)
		}
		d := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
		refused("thin image", "/v2/thumbnail/image", map[string]any{"model": "mdl_3", "format": "1:1", "image_base64": d}, "INVALID_IMAGE", "image_base64")
	}
	if got := e.balance(e.Account); got != before {
		t.Fatalf("balance %d after refusals, want %d", got, before)
	}
	// "DATA:" and the rest of the header in any case: the validator and the parser agree.
	upper := "DATA:IMAGE/JPEG;BASE64," + strings.TrimPrefix(dataURL(t, testImage(64, 48, 2)), "data:image/jpeg;base64,")
	if r := e.post("/v2/thumbnail/image", map[string]any{"model": "mdl_3", "format": "1:1", "image_base64": upper}); r.Status != 200 {
		t.Errorf("upper-case data URL: %d %s", r.Status, r.Raw)
	}
}

// TestFetchRefusalsLookAlike: with the SSRF guard on, an internal address and a name that
// does not resolve get the same answer.
func TestFetchRefusalsLookAlike(t *testing.T) {
	e := start(t, 1000, func(c *app.Config) { c.AllowPrivateFetch = false })
	var answers []string
	for _, u := range []string{"https://127.0.0.1:1/a.png", "https://[64:ff9b:1::a00:1]/a.png", "https://no-such-host.invalid/a.png"} {
		r := e.post("/v2/thumbnail/image", map[string]any{"model": "mdl_3", "format": "1:1", "image_url": u})
		if r.Status != 400 || r.code() != "INVALID_IMAGE" {
			t.Fatalf("%s: %d %s", u, r.Status, r.Raw)
		}
		errObj, _ := r.Body["error"].(map[string]any)
		answers = append(answers, errObj["message"].(string)+" "+string(mustJSON(t, errObj["details"])))
	}
	if answers[0] != answers[1] || answers[1] != answers[2] {
		t.Fatalf("answers differ: %q", answers)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
