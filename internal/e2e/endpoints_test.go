package e2e

import (
	"image"
	"image/draw"
	"strings"
	"testing"

	"thumbforge/internal/engines/enginetest"
)

// photo loads a test photograph shipped with the faces package.
func photo(t *testing.T, name string) image.Image { return enginetest.Photo(t, name) }

// mirrored returns img flipped left to right: a second, different-looking "person".
func mirrored(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx()/2; x++ {
			i, j := out.PixOffset(x, y), out.PixOffset(b.Dx()-1-x, y)
			for k := 0; k < 4; k++ {
				out.Pix[i+k], out.Pix[j+k] = out.Pix[j+k], out.Pix[i+k]
			}
		}
	}
	return out
}

func TestV2FaceSwap(t *testing.T) {
	e := start(t, 100)
	face := photo(t, "astronaut.jpg")
	target := mirrored(face)
	r := e.post("/v2/thumbnail/faceswap", map[string]any{
		"image_base64": dataURL(t, target), "face_image_base64": dataURL(t, face), "format": "1:1",
	})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if b := e.decodeOutput(r.str("output")).Bounds(); b.Dx() != 1080 || b.Dy() != 1080 {
		t.Fatalf("size %v", b)
	}
	if e.balance(e.Account) != 100-12 {
		t.Fatalf("balance %d", e.balance(e.Account))
	}
	r = e.post("/v2/thumbnail/faceswap", map[string]any{
		"image_base64": dataURL(t, photo(t, "coffee.jpg")), "face_image_base64": dataURL(t, face), "format": "1:1",
	})
	if r.Status != 400 || r.code() != "INVALID_IMAGE" || !strings.Contains(string(r.Raw), `"field":"image_base64"`) {
		t.Fatalf("faceless target: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v2/thumbnail/faceswap", map[string]any{
		"image_base64": dataURL(t, target), "face_image": e.serveImage("/cat.jpg", photo(t, "chelsea.jpg")), "format": "1:1",
	})
	if r.Status != 400 || r.code() != "INVALID_IMAGE" || !strings.Contains(string(r.Raw), `"field":"face_image"`) {
		t.Fatalf("faceless face: %d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100-12 {
		t.Fatal("charged for failed swaps")
	}
}

func TestV1FaceSwap(t *testing.T) {
	e := start(t, 100)
	face := photo(t, "astronaut.jpg")
	faceURL := e.serveImage("/face.jpg", face)
	targetURL := e.serveImage("/target.jpg", mirrored(face))
	coffee := e.serveImage("/coffee.jpg", photo(t, "coffee.jpg"))
	r := e.post("/v1/faceswap", map[string]any{"image_url": targetURL, "face_url": faceURL})
	if r.Status != 200 || r.str("output") == "" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if _, ok := r.Body["request_id"]; ok {
		t.Fatal("v1 answers carry only output")
	}
	cases := []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"face_url": faceURL}, "INVALID_ORIGINAL_IMAGE"},
		{map[string]any{"image_url": coffee, "face_url": faceURL}, "INVALID_ORIGINAL_IMAGE"},
		{map[string]any{"image_url": e.Images.URL + "/missing.jpg", "face_url": faceURL}, "INVALID_ORIGINAL_IMAGE"},
		{map[string]any{"image_url": targetURL}, "INVALID_FACE_IMAGE"},
		{map[string]any{"image_url": targetURL, "face_url": coffee}, "INVALID_FACE_IMAGE"},
	}
	for _, c := range cases {
		r := e.post("/v1/faceswap", c.body)
		if r.Status != 400 || r.code() != c.code {
			t.Errorf("%v: %d %s", c.body, r.Status, r.Raw)
		}
	}
	if e.balance(e.Account) != 100-12 {
		t.Fatal("charged for failed swaps")
	}
}

func TestEditAndScore(t *testing.T) {
	e := start(t, 100)
	src := testImage(640, 360, 50)
	r := e.post("/v2/thumbnail/edit", map[string]any{"image_base64": dataURL(t, src), "prompt": "make it brighter and add a vignette", "format": "16:9"})
	if r.Status != 200 {
		t.Fatalf("v2 edit: %d %s", r.Status, r.Raw)
	}
	if b := e.decodeOutput(r.str("output")).Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Fatalf("v2 edit size %v", b)
	}
	r = e.post("/v2/thumbnail/edit", map[string]any{"image_base64": dataURL(t, src), "prompt": "turn the dog into a dragon"})
	if r.Status != 422 || r.code() != "GENERATION_REJECTED" {
		t.Fatalf("v2 unknown edit: %d %s", r.Status, r.Raw)
	}
	url := e.serveImage("/edit.jpg", src)
	r = e.post("/v1/edit", map[string]any{"image_url": url, "prompt": "black and white"})
	if r.Status != 200 {
		t.Fatalf("v1 edit: %d %s", r.Status, r.Raw)
	}
	if b := e.decodeOutput(r.str("output")).Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Fatalf("v1 edit keeps the input size, got %v", b)
	}
	r = e.post("/v1/edit", map[string]any{"image_url": url, "prompt": "turn the dog into a dragon"})
	if r.Status != 400 || r.code() != "BAD_REQUEST" || !strings.Contains(string(r.Raw), "brighter") {
		t.Fatalf("v1 unknown edit: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v2/thumbnail/score", map[string]any{"image_base64": dataURL(t, src)})
	if r.Status != 200 {
		t.Fatalf("score: %d %s", r.Status, r.Raw)
	}
	score, _ := r.Body["score"].(float64)
	if score < 0 || score > 100 || len(r.Body["criteria"].([]any)) == 0 {
		t.Fatalf("score body %s", r.Raw)
	}
	if got := e.balance(e.Account); got != 100-12-12-3 {
		t.Fatalf("balance %d, want %d", got, 100-12-12-3)
	}
}

func TestV1ThumbnailAndRecreate(t *testing.T) {
	e := start(t, 1000)
	r := e.post("/v1/thumbnail", map[string]any{"prompt": "Morning yoga for beginners", "format": "9:16", "model": "mdl-1"})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if b := e.decodeOutput(r.str("output")).Bounds(); b.Dx() != 720 || b.Dy() != 1280 {
		t.Fatalf("size %v", b)
	}
	if e.balance(e.Account) != 1000-20 {
		t.Fatalf("mdl-1 priced like mdl_2: balance %d", e.balance(e.Account))
	}
	url := e.serveImage("/portrait.jpg", testImage(600, 900, 80))
	r = e.post("/v1/recreate", map[string]any{"image_url": url, "model": "mdl-3", "prompt": "Autumn colours", "image_weight": "low"})
	if r.Status != 200 {
		t.Fatalf("recreate: %d %s", r.Status, r.Raw)
	}
	if b := e.decodeOutput(r.str("output")).Bounds(); b.Dx() != 720 || b.Dy() != 1280 {
		t.Fatalf("recreate of a portrait source should be 9:16, got %v", b)
	}
	for _, body := range []map[string]any{
		{"image_url": url},
		{"image_url": url, "model": "mdl-1"},
		{"model": "mdl-3"},
		{"image_url": "ftp://x", "model": "mdl-3"},
	} {
		if r := e.post("/v1/recreate", body); r.Status != 400 || r.code() != "BAD_REQUEST" {
			t.Errorf("%v: %d %s", body, r.Status, r.Raw)
		}
	}
}

func TestTitles(t *testing.T) {
	e := start(t, 100)
	r := e.post("/v2/title/text", map[string]any{"prompt": "I tested 5 budget mechanical keyboards under $50 for a month"})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	outs, _ := r.Body["outputs"].([]any)
	if len(outs) < 3 || r.str("reasoning") == "" || r.str("request_id") == "" {
		t.Fatalf("body %s", r.Raw)
	}
	if c, ok := r.Body["prompt_compacted"].(bool); !ok || c {
		t.Fatalf("prompt_compacted %v", r.Body["prompt_compacted"])
	}
	long := strings.Repeat("We walk through the old town of Kyoto at dawn and talk about temples. ", 20)
	r = e.post("/v2/title/text", map[string]any{"prompt": long})
	if r.Status != 200 || r.Body["prompt_compacted"] != true {
		t.Fatalf("long prompt: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v2/title/text", map[string]any{"support_image_base64": dataURL(t, photo(t, "astronaut.jpg"))})
	if r.Status != 200 || !strings.Contains(strings.ToLower(r.str("reasoning")), "image") {
		t.Fatalf("image only: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v1/title", map[string]any{"prompt": "How to repot a monstera", "model": "mdl-3"})
	if r.Status != 200 || r.str("output") == "" {
		t.Fatalf("v1: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v1/title", map[string]any{"prompt": "How to repot a monstera", "model": "mdl-2"})
	if r.Status != 400 || r.code() != "BAD_REQUEST" {
		t.Fatalf("v1 wrong model: %d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != 100-4*8 {
		t.Fatalf("balance %d", got)
	}
}

func TestContentPolicy(t *testing.T) {
	e := start(t, 100)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "graphic beheading video", "model": "mdl_3", "format": "1:1"})
	if r.Status != 400 || r.code() != "CONTENT_POLICY" {
		t.Fatalf("v2: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v1/thumbnail", map[string]any{"prompt": "graphic beheading video"})
	if r.Status != 400 || r.code() != "CONTENT_POLICY_VIOLATION" {
		t.Fatalf("v1: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v2/title/text", map[string]any{"prompt": "graphic beheading video"})
	if r.Status != 400 || r.code() != "CONTENT_POLICY" {
		t.Fatalf("titles: %d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100 {
		t.Fatal("charged for refused prompts")
	}
}
