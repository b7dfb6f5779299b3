package openai

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzQuickB64 checks the fast path against the JSON parser on answers shaped like the
// API's (an image's bytes, a revised prompt and a URL of any content, slashes escaped or
// not): quickB64 either declines or returns exactly the bytes the parser decodes.
func FuzzQuickB64(f *testing.F) {
	f.Add([]byte("hello"), "a cat", "", false)
	f.Add([]byte{0xff, 0xfe, '/', '+'}, `"b64_json": "aGVsbG8="`, "https://x/y.png", true)
	f.Add([]byte{}, "", "", false)
	f.Fuzz(func(t *testing.T, img []byte, prompt, url string, escapeSlashes bool) {
		item := map[string]any{"b64_json": img, "revised_prompt": prompt}
		if url != "" {
			item["url"] = url
		}
		body, err := json.Marshal(map[string]any{"created": 1, "data": []any{item}, "output_format": "png"})
		if err != nil {
			t.Skip()
		}
		if escapeSlashes { // some servers write "\/" for "/", which JSON allows
			body = bytes.ReplaceAll(body, []byte("/"), []byte(`\/`))
		}
		var a answer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("the parser refused %s: %v", body, err)
		}
		if quick, ok := quickB64(body); ok && !bytes.Equal(quick, a.Data[0].B64JSON) {
			t.Fatalf("quickB64 gave %q, the parser %q, for %s", quick, a.Data[0].B64JSON, body)
		}
	})
}
