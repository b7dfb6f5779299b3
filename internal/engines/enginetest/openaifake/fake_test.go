package openaifake

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"thumbforge/internal/engines/enginetest/fakekit"
)

func pngOf(img image.Image) []byte { return fakekit.EncodePNG(img) }

// multipartBody builds a form: fields in order, then files.
func multipartBody(fields [][2]string, files [][2]any) (*bytes.Buffer, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	for _, f := range files {
		w, _ := mw.CreateFormFile(f[0].(string), "f.png")
		w.Write(f[1].([]byte))
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

func post(t *testing.T, url, ctype string, body io.Reader) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, ctype, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	json.Unmarshal(raw, &out)
	return resp, out
}

func errParam(body map[string]any) (param, code string) {
	e, _ := body["error"].(map[string]any)
	param, _ = e["param"].(string)
	code, _ = e["code"].(string)
	return
}

func TestGenerationsValidation(t *testing.T) {
	_, srv := Serve(t, Config{})
	cases := []struct {
		name, body, param, code string
	}{
		{"no prompt", `{"model":"gpt-image-1"}`, "", ""},
		{"bad quality enum", `{"prompt":"x","model":"gpt-image-1","quality":"ultra"}`, "", ""},
		{"n too large", `{"prompt":"x","model":"gpt-image-1","n":11}`, "", ""},
		{"n a string", `{"prompt":"x","model":"gpt-image-1","n":"1"}`, "", ""},
		{"unknown field", `{"prompt":"x","model":"gpt-image-1","steps":20}`, "steps", "unknown_parameter"},
		{"gpt size", `{"prompt":"x","model":"gpt-image-1","size":"1280x720"}`, "size", "invalid_value"},
		{"gpt-image-2 not /16", `{"prompt":"x","model":"gpt-image-2","size":"1080x1080"}`, "size", "invalid_value"},
		{"gpt-image-2 budget", `{"prompt":"x","model":"gpt-image-2","size":"576x1024"}`, "size", "invalid_value"},
		{"gpt-image-2 ratio", `{"prompt":"x","model":"gpt-image-2","size":"3200x1024"}`, "size", "invalid_value"},
		{"dall-e-3 size", `{"prompt":"x","model":"dall-e-3","size":"1536x1024"}`, "size", "invalid_value"},
		{"quality for model", `{"prompt":"x","model":"gpt-image-1","quality":"hd"}`, "quality", "invalid_value"},
		{"response_format on gpt", `{"prompt":"x","model":"gpt-image-1","response_format":"b64_json"}`, "response_format", "unknown_parameter"},
		{"unknown model", `{"prompt":"x","model":"sdxl"}`, "model", "invalid_value"},
		{"not json", `{"prompt":`, "", ""},
	}
	for _, c := range cases {
		resp, body := post(t, srv.URL+"/v1/images/generations", "application/json", strings.NewReader(c.body))
		param, code := errParam(body)
		if resp.StatusCode != 400 || param != c.param || code != c.code {
			t.Errorf("%s: %d %v (param %q code %q)", c.name, resp.StatusCode, body, param, code)
		}
	}
	for _, ok := range []string{
		`{"prompt":"x","model":"gpt-image-1","size":"1536x1024","n":1,"quality":"low"}`,
		`{"prompt":"x","model":"gpt-image-2","size":"1280x720"}`,
		`{"prompt":"x","model":"dall-e-3","size":"1792x1024","quality":"hd","response_format":"b64_json"}`,
	} {
		if resp, body := post(t, srv.URL+"/v1/images/generations", "application/json", strings.NewReader(ok)); resp.StatusCode != 200 {
			t.Errorf("%s: %d %v", ok, resp.StatusCode, body)
		}
	}
}

func TestEditsValidation(t *testing.T) {
	_, srv := Serve(t, Config{})
	img := pngOf(fakekit.Scene(1, "x", 64, 64))
	alpha := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	opaque := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range opaque.Pix {
		opaque.Pix[i] = 255
	}
	small := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	base := [][2]string{{"model", "gpt-image-1"}, {"prompt", "edit it"}}
	cases := []struct {
		name        string
		fields      [][2]string
		files       [][2]any
		param, code string
	}{
		{"no image", base, nil, "", ""},
		{"not an image", base, [][2]any{{"image[]", []byte("nope")}}, "image", "invalid_image_file"},
		{"mask without alpha", base, [][2]any{{"image[]", img}, {"mask", pngOf(opaque)}}, "mask", "invalid_image_file"},
		{"mask of another size", base, [][2]any{{"image[]", img}, {"mask", pngOf(small)}}, "mask", "invalid_image_file"},
		{"fidelity on mini", [][2]string{{"model", "gpt-image-1-mini"}, {"prompt", "x"}, {"input_fidelity", "high"}}, [][2]any{{"image[]", img}}, "input_fidelity", "invalid_value"},
		{"bad fidelity", append(base, [2]string{"input_fidelity", "max"}), [][2]any{{"image[]", img}}, "", ""},
		{"n not a number", append(base, [2]string{"n", "one"}), [][2]any{{"image[]", img}}, "n", "invalid_type"},
		{"unknown field", append(base, [2]string{"strength", "0.5"}), [][2]any{{"image[]", img}}, "strength", "unknown_parameter"},
		{"dall-e-3 edits", [][2]string{{"model", "dall-e-3"}, {"prompt", "x"}}, [][2]any{{"image[]", img}}, "model", "invalid_value"},
	}
	for _, c := range cases {
		body, ctype := multipartBody(c.fields, c.files)
		resp, out := post(t, srv.URL+"/v1/images/edits", ctype, body)
		param, code := errParam(out)
		if resp.StatusCode != 400 || param != c.param || code != c.code {
			t.Errorf("%s: %d %v", c.name, resp.StatusCode, out)
		}
	}
	body, ctype := multipartBody(append(base, [2]string{"size", "1024x1024"}, [2]string{"input_fidelity", "high"}),
		[][2]any{{"image[]", img}, {"image[]", img}, {"mask", pngOf(alpha)}})
	if resp, out := post(t, srv.URL+"/v1/images/edits", ctype, body); resp.StatusCode != 200 {
		t.Fatalf("valid edit: %d %v", resp.StatusCode, out)
	}
}

// TestAnswersMatchTheSchema checks the fake's own answers against the document's
// response schemas.
func TestAnswersMatchTheSchema(t *testing.T) {
	f, srv := Serve(t, Config{})
	s := f.spec
	bodies := []string{
		`{"prompt":"x","model":"gpt-image-1","size":"1024x1536","quality":"high"}`,
		`{"prompt":"x","model":"dall-e-3"}`,
		`{"prompt":"x","model":"gpt-image-2","size":"720x1280"}`,
	}
	for _, b := range bodies {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/images/generations", strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		vreq, _ := http.NewRequest("POST", "/v1/images/generations", strings.NewReader(b))
		vreq.Header.Set("Content-Type", "application/json")
		route, params, err := s.router.FindRoute(vreq)
		if err != nil {
			t.Fatal(err)
		}
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route},
			Status:                 resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(raw)),
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			t.Errorf("%s: the answer does not match ImagesResponse: %v", b, oneLine(err))
		}
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", b, resp.StatusCode, raw)
		}
	}
}

func TestEditHonoursMaskAndFidelity(t *testing.T) {
	w, h := 64, 64
	in := fakekit.Scene(3, "input", w, h)
	mask := image.NewGray(image.Rect(0, 0, w, h))
	for i := range mask.Pix[:w*h/2] {
		mask.Pix[i] = 255
	}
	low := edit([]image.Image{in}, mask, 1, "p", 0.6, false, w, h)
	high := edit([]image.Image{in}, mask, 1, "p", 0.35, false, w, h)
	diff := func(a *image.RGBA, lo, hi int) (d int) {
		for i := lo * 4 * w; i < hi*4*w; i++ {
			v := int(a.Pix[i]) - int(in.Pix[i])
			d += max(v, -v)
		}
		return d
	}
	if !(diff(high, 0, h/2) < diff(low, 0, h/2)) {
		t.Error("input_fidelity=high must keep more of the image")
	}
	if diff(low, h/2, h) == 0 {
		t.Error("an OpenAI mask is guidance: pixels outside it move a little")
	}
	if sd := edit([]image.Image{in}, mask, 1, "p", 0.6, true, w, h); diff(sd, h/2, h) != 0 {
		t.Error("sd-server composites: pixels outside the mask stay")
	}
}

func TestFaultsAndStats(t *testing.T) {
	f, srv := Serve(t, Config{Key: "k"})
	send := func() (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/images/generations", strings.NewReader(`{"prompt":"x","model":"gpt-image-1"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp, out
	}
	f.Arm(Moderation, 1)
	if resp, out := send(); resp.StatusCode != 400 || out["error"].(map[string]any)["code"] != "moderation_blocked" ||
		out["error"].(map[string]any)["type"] != "image_generation_user_error" {
		t.Fatalf("moderation: %d %v", resp.StatusCode, out)
	}
	f.Arm(Busy, 1)
	if resp, _ := send(); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("busy: %d", resp.StatusCode)
	}
	if resp, out := send(); resp.StatusCode != 200 {
		t.Fatalf("after the faults: %d %v", resp.StatusCode, out)
	}
	// The handler ends just after the client has the answer.
	for deadline := time.Now().Add(time.Minute); f.Stats().InFlight != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if s := f.Stats(); s.Served != 1 || s.InFlight != 0 || s.MaxInFlight != 1 {
		t.Fatalf("stats %+v", s)
	}
	resp, err := http.Post(srv.URL+"/v1/images/generations", "application/json", strings.NewReader(`{"prompt":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("no key: %d", resp.StatusCode)
	}
	if _, err := png.Decode(bytes.NewReader(pngOf(fakekit.Scene(1, "x", 8, 8)))); err != nil {
		t.Fatal(err)
	}
}
