package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/fakekit"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/engines/openai"
)

func backend(t *testing.T, url, key, model string) engines.Backend {
	t.Helper()
	b, err := openai.New(engines.BackendConfig{URL: url, Key: key, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parts reads a multipart body into its text fields and files.
func parts(t *testing.T, r fakekit.Request) (map[string]string, map[string][][]byte) {
	t.Helper()
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	fields, files := map[string]string{}, map[string][][]byte{}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return fields, files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		if p.FileName() != "" {
			files[p.FormName()] = append(files[p.FormName()], data)
		} else {
			fields[p.FormName()] = string(data)
		}
	}
}

func rgba(w, h int) *image.RGBA { return fakekit.Scene(9, "input", w, h) }

func TestSizesByModel(t *testing.T) {
	cases := map[string][3][2]int{
		"gpt-image-1":     {{1536, 1024}, {1024, 1536}, {1024, 1024}},
		"gpt-image-1.5":   {{1536, 1024}, {1024, 1536}, {1024, 1024}},
		"gpt-image-2":     {{1280, 720}, {720, 1280}, {1088, 1088}},
		"dall-e-3":        {{1792, 1024}, {1024, 1792}, {1024, 1024}},
		"my-local-model":  {{1536, 1024}, {1024, 1536}, {1024, 1024}},
		openai.SDCppModel: {{1280, 720}, {720, 1280}, {1088, 1088}},
	}
	for model, want := range cases {
		b := backend(t, "http://x/v1", "", model)
		for i, f := range core.Formats {
			if w, h := b.Size(f); w != want[i][0] || h != want[i][1] {
				t.Errorf("%s %s: %dx%d, want %v", model, f, w, h, want[i])
			}
		}
	}
	if c := backend(t, "http://x/v1", "", "dall-e-3").Caps(); c != engines.CapText {
		t.Errorf("dall-e-3 caps %v", c)
	}
	if c := backend(t, "http://x/v1", "", "gpt-image-1").Caps(); c.Has(engines.CapFaceSwap) || !c.Has(engines.CapPersona|engines.CapMask) {
		t.Errorf("gpt-image-1 caps %v", c)
	}
}

func TestGenerationsRequest(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{Key: "sk-abc"})
	b := backend(t, srv.URL+"/v1", "sk-abc", "gpt-image-1")
	data, err := b.Generate(context.Background(), &engines.Request{Op: engines.OpGenerate, Prompt: "a red fox", Width: 1536, Height: 1024, Tier: engines.TierOf("mdl_4_5")})
	if err != nil {
		t.Fatal(err)
	}
	if img, err := jpeg.Decode(bytes.NewReader(data)); err != nil || img.Bounds().Dx() != 1536 {
		t.Fatalf("picture: %v", err)
	}
	r := f.Requests()[0]
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"model": "gpt-image-1", "prompt": "a red fox", "size": "1536x1024", "n": 1.0, "quality": "high",
		"output_format": "jpeg", "output_compression": 95.0}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("%s = %v, want %v", k, body[k], v)
		}
	}
	if len(body) != len(want) || r.Header.Get("Authorization") != "Bearer sk-abc" || r.Path != "/v1/images/generations" {
		t.Errorf("request %s %v %s", r.Path, body, r.Header.Get("Authorization"))
	}
}

func TestEditsRequestWithMaskAndFidelity(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{})
	b := backend(t, srv.URL+"/v1", "", "gpt-image-1")
	mask := image.NewGray(image.Rect(0, 0, 1536, 1024))
	for i := range mask.Pix[:1536*512] {
		mask.Pix[i] = 255 // top half edited
	}
	_, err := b.Generate(context.Background(), &engines.Request{Op: engines.OpEdit, Prompt: "add snow", Width: 1536, Height: 1024,
		Image: rgba(1536, 1024), Mask: mask, Weight: core.WeightHigh, Tier: engines.TierOf("mdl_3"),
		Faces: []image.Image{rgba(64, 64)}})
	if err != nil {
		t.Fatal(err)
	}
	fields, files := parts(t, f.Requests()[0])
	if fields["input_fidelity"] != "high" || fields["quality"] != "medium" || fields["size"] != "1536x1024" || fields["prompt"] != "add snow" {
		t.Errorf("fields %v", fields)
	}
	if len(files["image[]"]) != 2 || len(files["image"]) != 0 || len(files["mask"]) != 1 {
		t.Fatalf("files: %d image[], %d image, %d mask", len(files["image[]"]), len(files["image"]), len(files["mask"]))
	}
	m, err := png.Decode(bytes.NewReader(files["mask"][0]))
	if err != nil {
		t.Fatal(err)
	}
	nrgba, ok := m.(*image.NRGBA)
	if !ok || m.Bounds() != image.Rect(0, 0, 1536, 1024) {
		t.Fatalf("mask is %T %v, want an RGBA PNG of the image's size", m, m.Bounds())
	}
	top, bottom := nrgba.NRGBAAt(10, 10), nrgba.NRGBAAt(10, 1000)
	if top.A != 0 || bottom.A != 255 || top.R != 255 || bottom.R != 0 {
		t.Fatalf("mask pixels: edited %v, kept %v (want alpha 0 and white where edited)", top, bottom)
	}
}

func TestMiniHasNoFidelity(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{})
	b := backend(t, srv.URL+"/v1", "", "gpt-image-1-mini")
	if _, err := b.Generate(context.Background(), &engines.Request{Op: engines.OpGenerate, Prompt: "x", Width: 1024, Height: 1024,
		Image: rgba(1024, 1024), Weight: core.WeightHigh, Strength: 0.35, Tier: engines.TierOf("mdl_2")}); err != nil {
		t.Fatal(err) // the fake refuses input_fidelity on -mini, as the API does
	}
	if fields, _ := parts(t, f.Requests()[0]); fields["input_fidelity"] != "" {
		t.Fatal("input_fidelity sent to a mini model")
	}
}

func TestDalleURLAnswerIsFetchedWithoutTheKey(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{Key: "sk-dalle"})
	b := backend(t, srv.URL+"/v1", "sk-dalle", "dall-e-3")
	data, err := b.Generate(context.Background(), &engines.Request{Op: engines.OpGenerate, Prompt: "a castle", Width: 1792, Height: 1024, Tier: engines.TierOf("mdl_4")})
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(data)); err != nil || img.Bounds().Dx() != 1792 {
		t.Fatalf("picture: %v", err)
	}
	reqs := f.Requests()
	if len(reqs) != 2 || !strings.HasPrefix(reqs[1].Path, "/files/") || reqs[1].Header.Get("Authorization") != "" {
		t.Fatalf("the URL answer was not fetched, or was fetched with the key: %+v", reqs)
	}
	if !strings.Contains(string(reqs[0].Body), `"quality":"hd"`) {
		t.Errorf("dall-e-3 quality for mdl_4: %s", reqs[0].Body)
	}
}

func TestSDCppExtraArgs(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{Flavor: "sdcpp"})
	b := backend(t, srv.URL+"/v1", "", openai.SDCppModel)
	_, err := b.Generate(context.Background(), &engines.Request{Op: engines.OpGenerate, Prompt: "a barn", Negative: "text", Width: 1280, Height: 720,
		Image: rgba(1280, 720), Strength: 0.55, Seed: 42, Tier: engines.TierOf("mdl_3")})
	if err != nil {
		t.Fatal(err)
	}
	fields, _ := parts(t, f.Requests()[0])
	p := fields["prompt"]
	if !strings.HasPrefix(p, "a barn <sd_cpp_extra_args>") || !strings.Contains(p, `"strength":0.55`) || !strings.Contains(p, `"seed":42`) ||
		!strings.Contains(p, `"sample_steps":20`) || !strings.Contains(p, `"negative_prompt":"text"`) {
		t.Fatalf("prompt %q", p)
	}
	if _, ok := fields["quality"]; ok {
		t.Error("quality sent to sd-server")
	}
}

func TestErrorsAreClassified(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		header string
		want   engines.Class
	}{
		{"moderation", 400, `{"error":{"message":"rejected","type":"image_generation_user_error","param":null,"code":"moderation_blocked"}}`, "", engines.ClassRefused},
		{"dalle policy", 400, `{"error":{"message":"rejected","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}`, "", engines.ClassRefused},
		{"bad size", 400, `{"error":{"message":"bad","type":"invalid_request_error","param":"size","code":"invalid_value"}}`, "", engines.ClassFailed},
		{"sd.cpp", 400, `{"error":"invalid params"}`, "", engines.ClassFailed},
		{"key", 401, `{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "", engines.ClassUnavailable},
		{"rate", 429, `{"error":{"message":"slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "3", engines.ClassBusy},
		{"server", 500, `{"error":{"message":"oops","type":"server_error","param":null,"code":null}}`, "", engines.ClassFailed},
		{"proxy", 502, `bad gateway`, "", engines.ClassUnavailable},
		{"no image", 200, `{"created":1,"data":[]}`, "", engines.ClassFailed},
		{"not json", 200, `<html>`, "", engines.ClassFailed},
	}
	for _, c := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.header != "" {
				w.Header().Set("Retry-After", c.header)
			}
			w.WriteHeader(c.status)
			io.WriteString(w, c.body)
		}))
		_, err := backend(t, srv.URL+"/v1", "sk-x", "gpt-image-1").Generate(context.Background(),
			&engines.Request{Op: engines.OpGenerate, Prompt: "x", Width: 1024, Height: 1024, Tier: engines.TierOf("mdl_3")})
		srv.Close()
		var e *engines.Error
		if !errors.As(err, &e) || e.Class != c.want {
			t.Errorf("%s: %v, want class %v", c.name, err, c.want)
			continue
		}
		if c.want == engines.ClassBusy && e.RetryAfter.Seconds() != 3 {
			t.Errorf("%s: Retry-After %v", c.name, e.RetryAfter)
		}
	}
}

func TestPingAndCheck(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{Key: "sk-ok"})
	if err := backend(t, srv.URL+"/v1", "sk-ok", "gpt-image-1").Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := backend(t, srv.URL+"/v1", "sk-wrong", "gpt-image-1").Ping(context.Background())
	var e *engines.Error
	if !errors.As(err, &e) || e.Class != engines.ClassUnavailable || e.Status != 401 {
		t.Fatalf("wrong key: %v", err)
	}
	checks := backend(t, srv.URL+"/v1", "sk-ok", "no-such-model").(engines.Checker).Check(context.Background())
	if len(checks) != 2 || !checks[0].OK || checks[1].OK {
		t.Fatalf("checks %+v", checks)
	}
	f.Arm(openaifake.Down, -1)
	if err := backend(t, srv.URL+"/v1", "sk-ok", "gpt-image-1").Ping(context.Background()); err == nil {
		t.Fatal("a dead backend answered the ping")
	}
}
