package sdapifake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

type answer struct {
	Images     []string       `json:"images"`
	Parameters map[string]any `json:"parameters"`
	Info       string         `json:"info"`
	Detail     any            `json:"detail"`
	Error      any            `json:"error"`
}

func post(t *testing.T, url, auth string, body any) (int, answer) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.SetBasicAuth(auth[:4], auth[5:])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var a answer
	json.Unmarshal(raw, &a)
	return resp.StatusCode, a
}

func decode(t *testing.T, a answer) *image.RGBA {
	t.Helper()
	if len(a.Images) != 1 {
		t.Fatalf("images: %d", len(a.Images))
	}
	b, err := base64.StdEncoding.DecodeString(a.Images[0])
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return fakekit.ToRGBA(img)
}

// TestFieldValidation: unknown and mistyped fields get FastAPI's 422 with every problem.
func TestFieldValidation(t *testing.T) {
	_, srv := Serve(t, Config{})
	code, a := post(t, srv.URL+"/sdapi/v1/txt2img", "", map[string]any{
		"prompt": "a cat", "steps": "20", "width": 1344.5, "cfg_scale": 7, "restore_faces": "yes",
		"styles": []any{"x", 3}, "init_images": []string{"x"}, "denoise": 0.5, "seed": nil,
	})
	if code != 422 {
		t.Fatalf("status %d", code)
	}
	got := map[string]string{}
	for _, p := range a.Detail.([]any) {
		m := p.(map[string]any)
		loc, _ := json.Marshal(m["loc"])
		got[string(loc)] = m["type"].(string)
	}
	want := map[string]string{
		`["body","steps"]`:         "type_error.integer",
		`["body","width"]`:         "type_error.integer",
		`["body","restore_faces"]`: "type_error.bool",
		`["body","styles",1]`:      "type_error.str",
		`["body","init_images"]`:   "value_error.extra", // an img2img field on txt2img
		`["body","denoise"]`:       "value_error.extra",
	}
	for loc, typ := range want {
		if got[loc] != typ {
			t.Errorf("%s: %q, want %q (all: %v)", loc, got[loc], typ, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("problems %v, want exactly %v", got, want)
	}
	if code, a := post(t, srv.URL+"/sdapi/v1/txt2img", "", map[string]any{"prompt": "x", "sampler_name": "Euler b"}); code != 404 || a.Error != "HTTPException" {
		t.Errorf("unknown sampler: %d %+v", code, a)
	}
	if code, _ := post(t, srv.URL+"/sdapi/v1/img2img", "", map[string]any{"prompt": "x"}); code != 404 {
		t.Errorf("img2img without init_images: %d", code)
	}
}

// TestGenerations: txt2img answers a PNG at the size asked and info as a JSON string;
// img2img keeps more of the image at lower denoising_strength and nothing outside the mask.
func TestGenerations(t *testing.T) {
	_, srv := Serve(t, Config{})
	code, a := post(t, srv.URL+"/sdapi/v1/txt2img", "", map[string]any{"prompt": "a lighthouse", "width": 1344, "height": 768, "steps": 3, "seed": 5})
	if code != 200 {
		t.Fatalf("txt2img %d", code)
	}
	if b := decode(t, a).Bounds(); b.Dx() != 1344 || b.Dy() != 768 {
		t.Errorf("size %v", b)
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(a.Info), &info); err != nil || info["seed"] != 5.0 {
		t.Errorf("info %q: %v", a.Info, err)
	}

	ref := fakekit.Scene(3, "ref", 256, 128)
	refB64 := base64.StdEncoding.EncodeToString(fakekit.EncodePNG(ref))
	mask := image.NewGray(image.Rect(0, 0, 256, 128))
	for y := 0; y < 128; y++ {
		for x := 128; x < 256; x++ {
			mask.SetGray(x, y, color.Gray{255})
		}
	}
	maskB64 := base64.StdEncoding.EncodeToString(fakekit.EncodePNG(mask))
	run := func(extra map[string]any) *image.RGBA {
		body := map[string]any{"prompt": "storm", "width": 256, "height": 128, "steps": 2, "seed": 9,
			"init_images": []string{"data:image/png;base64," + refB64}}
		for k, v := range extra {
			body[k] = v
		}
		code, a := post(t, srv.URL+"/sdapi/v1/img2img", "", body)
		if code != 200 {
			t.Fatalf("img2img %d %+v", code, a)
		}
		return decode(t, a)
	}
	diff := func(img *image.RGBA, r image.Rectangle) float64 {
		var s float64
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				for c := 0; c < 3; c++ {
					d := float64(img.Pix[img.PixOffset(x, y)+c]) - float64(ref.Pix[ref.PixOffset(x, y)+c])
					s += d * d
				}
			}
		}
		return s
	}
	low, high := run(map[string]any{"denoising_strength": 0.35}), run(map[string]any{"denoising_strength": 0.75})
	if !(diff(low, ref.Rect) > 0 && diff(low, ref.Rect) < diff(high, ref.Rect)) {
		t.Errorf("strength 0.35: %.0f, 0.75: %.0f", diff(low, ref.Rect), diff(high, ref.Rect))
	}
	in := run(map[string]any{"denoising_strength": 1.0, "mask": maskB64, "inpainting_fill": 1})
	if diff(in, image.Rect(0, 0, 128, 128)) != 0 || diff(in, image.Rect(128, 0, 256, 128)) == 0 {
		t.Error("mask not honoured: white repaints, black keeps")
	}
	inv := run(map[string]any{"denoising_strength": 1.0, "mask": maskB64, "inpainting_mask_invert": 1})
	if diff(inv, image.Rect(128, 0, 256, 128)) != 0 {
		t.Error("inverted mask not honoured")
	}
}

// TestAuth: Basic auth is required on every route when configured.
func TestAuth(t *testing.T) {
	_, srv := Serve(t, Config{Auth: "user:pass"})
	if code, a := post(t, srv.URL+"/sdapi/v1/txt2img", "", map[string]any{"prompt": "x", "steps": 1}); code != 401 || a.Detail != "Incorrect username or password" {
		t.Errorf("no auth: %d %+v", code, a)
	}
	if code, _ := post(t, srv.URL+"/sdapi/v1/txt2img", "user:nope", map[string]any{"prompt": "x", "steps": 1}); code != 401 {
		t.Errorf("wrong password: %d", code)
	}
	if code, _ := post(t, srv.URL+"/sdapi/v1/txt2img", "user:pass", map[string]any{"prompt": "x", "steps": 1, "width": 64, "height": 64}); code != 200 {
		t.Errorf("auth: %d", code)
	}
}

// TestTasksAndInterrupt: generations run one at a time; /internal/progress tells a
// task's state; an interrupt stops the running task, which still answers 200.
func TestTasksAndInterrupt(t *testing.T) {
	f, srv := Serve(t, Config{})
	f.Arm(Hang, 1)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, id := range []string{"task(a)", "task(b)"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = post(t, srv.URL+"/sdapi/v1/txt2img", "", map[string]any{"prompt": "x", "steps": 2, "width": 64, "height": 64, "force_task_id": id})
		}()
		for f.Current() == "" { // the first holds the lock before the second is sent
			time.Sleep(time.Millisecond)
		}
	}
	state := func(id string) map[string]any {
		var out map[string]any
		b, _ := json.Marshal(map[string]any{"id_task": id, "id_live_preview": -1})
		resp, err := http.Post(srv.URL+"/internal/progress", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		return out
	}
	for state("task(b)")["queued"] != true {
		time.Sleep(time.Millisecond)
	}
	if s := state("task(a)"); s["active"] != true {
		t.Errorf("task(a): %v", s)
	}
	http.Post(srv.URL+"/sdapi/v1/interrupt", "application/json", nil)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("codes %v", codes)
	}
	if s := state("task(a)"); s["completed"] != true {
		t.Errorf("task(a) after: %v", s)
	}
	if in := f.Interrupts(); len(in) != 1 || in[0].Current != "task(a)" {
		t.Errorf("interrupts %+v", in)
	}
}

// TestFaultsAndFlavor: armed faults answer as the server would; the sd.cpp flavor has no
// interrupt route and answers {"error": text}.
func TestFaultsAndFlavor(t *testing.T) {
	f, srv := Serve(t, Config{})
	body := map[string]any{"prompt": "x", "steps": 1, "width": 64, "height": 64}
	f.Arm(Busy, 1)
	if code, _ := post(t, srv.URL+"/sdapi/v1/txt2img", "", body); code != 429 {
		t.Errorf("busy: %d", code)
	}
	f.Arm(Fail, 1)
	if code, a := post(t, srv.URL+"/sdapi/v1/txt2img", "", body); code != 500 || a.Error != "RuntimeError" {
		t.Errorf("fail: %d %+v", code, a)
	}
	f.Arm(Down, 1)
	if code, _ := post(t, srv.URL+"/sdapi/v1/txt2img", "", body); code != 502 {
		t.Errorf("down: %d", code)
	}
	_, cpp := Serve(t, Config{Flavor: "sdcpp"})
	if code, _ := post(t, cpp.URL+"/sdapi/v1/interrupt", "", nil); code != 404 {
		t.Errorf("sd.cpp interrupt: %d", code)
	}
	if code, a := post(t, cpp.URL+"/sdapi/v1/txt2img", "", map[string]any{"prompt": 3}); code != 400 || a.Error == nil {
		t.Errorf("sd.cpp bad field: %d %+v", code, a)
	}
}
