package api

import (
	"encoding/json"
	"strings"
	"testing"
	"thumbforge/internal/inputs"

	"thumbforge/internal/core"
)

const (
	okURL  = "https://example.com/a.jpg"
	okData = "data:image/png;base64,iVBORw0KGgo="
)

// problems decodes body with decode and returns the fields of its problems and the code.
func problems[T any](t *testing.T, decode func(*body) (T, error), js string) (core.Code, map[string]bool) {
	t.Helper()
	b, err := parseBody([]byte(js))
	if err != nil {
		return core.CodeOf(err), nil
	}
	_, err = decode(b)
	if err == nil {
		return "", nil
	}
	e := core.AsError(err)
	fields := map[string]bool{}
	for _, d := range e.Details {
		fields[d.Field] = true
	}
	return e.Code, fields
}

func obj(kv ...any) string {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestThumbnailImageRules(t *testing.T) {
	base := []any{"model", "mdl_4", "format", "16:9", "image_url", okURL}
	with := func(kv ...any) string { return obj(append(append([]any{}, base...), kv...)...) }
	cases := []struct {
		name  string
		body  string
		code  core.Code
		field string
	}{
		{"minimal ok", with(), "", ""},
		{"every field ok", with("prompt", "Hello", "support_image_url", okURL, "image_weight", "low", "persona", "p", "style", "s"), "", ""},
		{"base64 instead of url", obj("model", "mdl_2", "format", "1:1", "image_base64", okData), "", ""},
		{"model missing", obj("format", "1:1", "image_url", okURL), core.CodeValidation, "model"},
		{"model unknown", with("model", "mdl_5"), core.CodeValidation, "model"},
		{"v1 model name", with("model", "mdl-3"), core.CodeValidation, "model"},
		{"model wrong type", with("model", 4), core.CodeValidation, "model"},
		{"format missing", obj("model", "mdl_4", "image_url", okURL), core.CodeValidation, "format"},
		{"format unknown", with("format", "4:3"), core.CodeValidation, "format"},
		{"neither image", obj("model", "mdl_4", "format", "1:1"), core.CodeValidation, "image_url"},
		{"both images", with("image_base64", okData), core.CodeValidation, "image_url"},
		{"http url", with("image_url", "http://example.com/a.jpg"), core.CodeValidation, "image_url"},
		{"url with space", with("image_url", "https://example.com/a b.jpg"), core.CodeValidation, "image_url"},
		{"bare https", with("image_url", "https://"), core.CodeValidation, "image_url"},
		{"bad data url", obj("model", "mdl_4", "format", "1:1", "image_base64", "data:text/plain;base64,AAAA"), core.CodeValidation, "image_base64"},
		{"data url not base64", obj("model", "mdl_4", "format", "1:1", "image_base64", "data:image/png,AAAA"), core.CodeValidation, "image_base64"},
		{"prompt empty", with("prompt", ""), core.CodeValidation, "prompt"},
		{"prompt 3000 ok", with("prompt", strings.Repeat("é", 3000)), "", ""},
		{"prompt 3001", with("prompt", strings.Repeat("a", 3001)), core.CodeValidation, "prompt"},
		{"prompt http", with("prompt", "see HtTp stuff"), core.CodeValidation, "prompt"},
		{"prompt wrong type", with("prompt", []int{1}), core.CodeValidation, "prompt"},
		{"support with mdl_2", with("model", "mdl_2", "support_image_url", okURL), core.CodeValidation, "support_image_url"},
		{"support with mdl_3", with("model", "mdl_3", "support_image_base64", okData), core.CodeValidation, "support_image_base64"},
		{"support both: url wins", with("support_image_url", okURL, "support_image_base64", "garbage"), "", ""},
		{"support bad url", with("support_image_url", "ftp://x"), core.CodeValidation, "support_image_url"},
		{"weight bad", with("image_weight", "max"), core.CodeValidation, "image_weight"},
		{"persona empty", with("persona", ""), core.CodeValidation, "persona"},
		{"style wrong type", with("style", 5), core.CodeValidation, "style"},
		{"unknown property", with("seed", 1), core.CodeValidation, "seed"},
		{"null counts as absent", with("prompt", nil), "", ""},
		{"malformed json", `{"model":`, core.CodeValidation, ""},
		{"not an object", `[1,2]`, core.CodeValidation, ""},
		{"trailing data", with() + `{}`, core.CodeValidation, ""},
		{"empty body", ``, core.CodeValidation, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, fields := problems(t, decodeThumbnailImage, c.body)
			if code != c.code {
				t.Fatalf("code %q, want %q (fields %v)", code, c.code, fields)
			}
			if c.field != "" && !fields[c.field] {
				t.Fatalf("no problem named %q: %v", c.field, fields)
			}
		})
	}
}

func TestThumbnailImageDefaultsAndPrecedence(t *testing.T) {
	b, _ := parseBody([]byte(obj("model", "mdl_2", "format", "1:1", "image_url", okURL, "prompt", "ignored",
		"support_image_url", okURL)))
	if _, err := decodeThumbnailImage(b); err == nil {
		t.Fatal("support image with mdl_2 accepted")
	}
	b, _ = parseBody([]byte(obj("model", "mdl_2", "format", "1:1", "image_url", okURL, "prompt", "ignored")))
	p, err := decodeThumbnailImage(b)
	if err != nil || p.Prompt != "" || p.Weight != core.WeightMedium {
		t.Fatalf("mdl_2: prompt %q weight %q err %v", p.Prompt, p.Weight, err)
	}
	b, _ = parseBody([]byte(obj("model", "mdl_4_5", "format", "1:1", "image_url", okURL,
		"support_image_url", okURL, "support_image_base64", okData)))
	p, err = decodeThumbnailImage(b)
	if err != nil || p.Support.URL != okURL || p.Support.Data != "" || p.Support.Field != "support_image_url" {
		t.Fatalf("support precedence: %+v %v", p.Support, err)
	}
	// A video page link as the reference stands for the video's thumbnail image.
	b, _ = parseBody([]byte(obj("model", "mdl_2", "format", "1:1", "image_url", "https://youtu.be/dQw4w9WgXcQ")))
	p, err = decodeThumbnailImage(b)
	if err != nil || p.Reference.URL != "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" || p.Reference.Field != "image_url" {
		t.Fatalf("video reference: %+v %v", p.Reference, err)
	}
}

func TestThumbnailTextRules(t *testing.T) {
	cases := []struct {
		name string
		body string
		code core.Code
	}{
		{"ok", obj("prompt", "Hi", "model", "mdl_4_5", "format", "9:16"), ""},
		{"prompt missing", obj("model", "mdl_4_5", "format", "9:16"), core.CodeValidation},
		{"prompt http", obj("prompt", "HTTPS", "model", "mdl_4_5", "format", "9:16"), core.CodeValidation},
		{"unknown property", obj("prompt", "Hi", "model", "mdl_4_5", "format", "9:16", "image_url", okURL), core.CodeValidation},
		{"support with mdl_4", obj("prompt", "Hi", "model", "mdl_4", "format", "1:1", "support_image_url", okURL), ""},
		{"support with mdl_3", obj("prompt", "Hi", "model", "mdl_3", "format", "1:1", "support_image_url", okURL), core.CodeSupportNotSupported},
		{"support with mdl_2 and bad format", obj("prompt", "Hi", "model", "mdl_2", "format", "2:1", "support_image_url", okURL), core.CodeValidation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if code, fields := problems(t, decodeThumbnailText, c.body); code != c.code {
				t.Fatalf("code %q, want %q (%v)", code, c.code, fields)
			}
		})
	}
}

func TestFaceSwapEditTitleRules(t *testing.T) {
	fs := []struct {
		body string
		code core.Code
	}{
		{obj("image_url", okURL, "face_image", okURL, "format", "1:1"), ""},
		{obj("image_base64", okData, "face_image_base64", okData, "format", "1:1", "mask_base64", okData), ""},
		{obj("image_url", okURL, "format", "1:1"), core.CodeValidation},
		{obj("image_url", okURL, "image_base64", okData, "face_image", okURL, "format", "1:1"), core.CodeValidation},
		{obj("image_url", okURL, "face_image", okURL), core.CodeValidation},
		{obj("image_url", okURL, "face_image", okURL, "format", "1:1", "mask_url", okURL, "mask_base64", okData), core.CodeValidation},
		{obj("image_url", okURL, "face_image", okURL, "format", "1:1", "face_url", okURL), core.CodeValidation},
	}
	for i, c := range fs {
		if code, f := problems(t, decodeFaceSwap, c.body); code != c.code {
			t.Errorf("faceswap %d: %q want %q %v", i, code, c.code, f)
		}
	}
	ti := []struct {
		body string
		code core.Code
	}{
		{obj("prompt", "How to bake bread"), ""},
		{obj("support_image_url", okURL), ""},
		{obj("support_image_base64", okData), ""},
		{obj(), core.CodeValidation},
		{obj("prompt", ""), core.CodeValidation},
		{obj("prompt", strings.Repeat("a", 3001)), core.CodeValidation},
		{obj("prompt", "x", "model", "mdl-3"), core.CodeValidation},
	}
	for i, c := range ti {
		if code, f := problems(t, decodeTitle, c.body); code != c.code {
			t.Errorf("title %d: %q want %q %v", i, code, c.code, f)
		}
	}
	b, _ := parseBody([]byte(obj("support_image_url", "https://www.youtube.com/watch?v=dQw4w9WgXcQ")))
	p, err := decodeTitle(b)
	if err != nil || !strings.Contains(p.Image.URL, "i.ytimg.com/vi/dQw4w9WgXcQ/") {
		t.Fatalf("video URL not resolved: %q %v", p.Image.URL, err)
	}
	ed := []struct {
		body string
		code core.Code
	}{
		{obj("image_url", okURL, "prompt", "make it brighter"), ""},
		{obj("image_url", okURL, "prompt", "brighter", "format", "1:1", "mask_url", okURL), ""},
		{obj("image_url", okURL), core.CodeValidation},
		{obj("prompt", "brighter"), core.CodeValidation},
		{obj("image_url", okURL, "prompt", "brighter", "format", "5:4"), core.CodeValidation},
	}
	for i, c := range ed {
		if code, f := problems(t, decodeEdit, c.body); code != c.code {
			t.Errorf("edit %d: %q want %q %v", i, code, c.code, f)
		}
	}
}

func TestV1ErrorMapping(t *testing.T) {
	cases := map[core.Code]struct {
		status int
		code   string
	}{
		core.CodeValidation:          {400, "BAD_REQUEST"},
		core.CodeContentPolicy:       {400, "CONTENT_POLICY_VIOLATION"},
		core.CodeInvalidAPIKey:       {401, "INVALID_AUTH_HEADER"},
		core.CodeAccountSuspended:    {401, "INVALID_AUTH_HEADER"},
		core.CodeInsufficientCredits: {402, "INSUFFICIENT_BALANCE"},
		core.CodeTooManyRequests:     {429, "CONCURRENT_LIMIT_EXCEEDED"},
		core.CodeInternal:            {500, "INTERNAL_ERROR"},
		core.CodeMaintenance:         {503, "MAINTENANCE_ACTIVE"},
		core.CodeNotFound:            {404, "NOT_FOUND"},
	}
	for c, want := range cases {
		got := toV1(core.E(c, "m"))
		if got.Status != want.status || got.Code != want.code || got.Details == "" {
			t.Errorf("%s -> %+v, want %v", c, got, want)
		}
	}
}

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, c := range core.AllCodes {
		if _, ok := statusOf[c]; !ok {
			t.Errorf("no status for %s", c)
		}
	}
	if len(statusOf) != len(core.AllCodes) {
		t.Errorf("status table has %d codes, spec has %d", len(statusOf), len(core.AllCodes))
	}
}

func FuzzParseBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `[]`, `{"model":"mdl_4","format":"1:1","image_url":"https://a"}`, `{"a":`, "\xff", `{"a":1}{}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBody(data)
		if err != nil {
			if core.AsError(err) == nil {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		_, err = decodeThumbnailImage(b)
		if err != nil && core.CodeOf(err) == core.CodeInternal {
			t.Fatalf("internal error from validation: %v", err)
		}
	})
}

func FuzzCheckDataURL(f *testing.F) {
	for _, s := range []string{okData, "data:image/;base64,AA", "data:image/png;base64,", "data:image/svg+xml;base64,AA", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The validator and the parser agree on every string.
		_, _, perr := inputs.ParseDataURL(s)
		if ok := checkDataURL(s) == ""; ok != (perr == nil) {
			t.Fatalf("%q: validator ok=%v, parser %v", s, ok, perr)
		}
	})
}
