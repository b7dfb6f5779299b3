package openaifake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"strings"
	"time"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// job is a validated image request.
type job struct {
	prompt   string
	seed     uint64
	strength float64
	w, h     int
	images   []image.Image
	mask     *image.Gray
	dalle    bool // answers a URL unless b64_json was asked
	b64      bool
	quality  string
	format   string // output_format: png (default) or jpeg
	compress int    // output_compression for jpeg, 0..100
}

// encode writes a picture in the requested output format.
func (j *job) encode(img image.Image) []byte {
	if j.format != "jpeg" {
		return fakekit.EncodePNG(img)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: max(1, j.compress)}); err != nil {
		panic(err) // encoding to memory fails only for an invalid image
	}
	return b.Bytes()
}

// canned is Config.Answer in the job's format, encoded once.
func (f *Fake) canned(j *job) []byte {
	key := fmt.Sprintf("%s/%d", j.format, j.compress)
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.answers[key]; ok {
		return b
	}
	b := j.encode(f.cfg.Answer)
	f.answers[key] = b
	return b
}

// image answers /v1/images/generations (edit=false) and /v1/images/edits.
func (f *Fake) image(w http.ResponseWriter, r *http.Request, edit bool) {
	defer f.track()()
	body, _ := io.ReadAll(r.Body)
	form, p := f.spec.check(r, body)
	if p != nil {
		f.fail(w, p)
		return
	}
	j, p := f.read(form, edit)
	if p != nil {
		f.fail(w, p)
		return
	}
	switch {
	case f.Take(Moderation):
		f.fail(w, moderation(j.dalle))
		return
	case f.Take(Busy):
		w.Header().Set("Retry-After", "1")
		f.fail(w, &problem{status: http.StatusTooManyRequests, code: "rate_limit_exceeded",
			message: "Rate limit reached for images per minute. Please try again in 1s."})
		return
	case f.Take(Fail):
		f.fail(w, &problem{status: http.StatusInternalServerError,
			message: "The server had an error processing your request. Sorry about that! (injected by the fake)"})
		return
	}
	if !f.wait(r, f.Take(Hang)) {
		return
	}
	var data []byte
	if f.cfg.Answer != nil {
		data = f.canned(j)
	} else if edit {
		data = j.encode(paintEdit(j, f.cfg.Flavor == "sdcpp"))
	} else {
		data = j.encode(fakekit.Scene(j.seed, j.prompt, j.w, j.h))
	}
	if f.Take(Garbage) {
		data = []byte("this is not a picture")
	}
	f.mu.Lock()
	f.served++
	f.mu.Unlock()
	f.answer(w, r, j, data)
}

func paintEdit(j *job, sdcpp bool) *image.RGBA {
	return edit(j.images, j.mask, j.seed, j.prompt, j.strength, sdcpp, j.w, j.h)
}

// read applies the rules beyond the schema and gathers what the picture is made from.
func (f *Fake) read(form *form, edit bool) (*job, *problem) {
	j := &job{prompt: form.str("prompt"), quality: form.str("quality"), strength: 0.6, format: "png", compress: 100}
	if strings.TrimSpace(j.prompt) == "" {
		return nil, invalid("prompt", "invalid_value", "prompt required")
	}
	if of := form.str("output_format"); of != "" {
		j.format = of
	}
	if j.format == "webp" {
		return nil, invalid("output_format", "invalid_value", "webp output is not implemented by this fake")
	}
	if c, ok := form.fields["output_compression"].(int64); ok {
		j.compress = int(c)
	} else if c, ok := form.fields["output_compression"].(float64); ok {
		j.compress = int(c)
	}
	if j.compress < 0 || j.compress > 100 {
		return nil, invalid("output_compression", "invalid_value", "output_compression must be between 0 and 100.")
	}
	if f.cfg.Flavor == "sdcpp" {
		if p := j.readSDCpp(form); p != nil {
			return nil, p
		}
	} else {
		var p *problem
		if j.w, j.h, p = checkModel(form, edit); p != nil {
			return nil, p
		}
		fam := family(form.str("model"))
		j.dalle = strings.HasPrefix(fam, "dall-e") || (fam == "default" && !edit)
		j.b64 = !j.dalle || form.str("response_format") == "b64_json"
		if form.str("input_fidelity") == "high" {
			j.strength = 0.35
		}
		j.seed = fakekit.Hash(j.prompt)
	}
	if !edit {
		return j, nil
	}
	var p *problem
	if j.images, p = decodeImages(form.files["image"]); p != nil {
		return nil, p
	}
	if len(j.images) == 0 {
		return nil, invalid("image", "invalid_value", "at least one image[] required")
	}
	if masks := form.files["mask"]; len(masks) > 0 {
		if j.mask, p = readMask(masks[0], j.images[0], f.cfg.Flavor == "sdcpp", j.w, j.h); p != nil {
			return nil, p
		}
	}
	return j, nil
}

// readSDCpp reads the request as sd-server does: the size as given (512x512 by default),
// seed and strength from <sd_cpp_extra_args>.
func (j *job) readSDCpp(form *form) *problem {
	prompt, extra := extraArgs(j.prompt)
	j.prompt, j.seed, j.strength, j.b64 = prompt, fakekit.Hash(prompt), 0.75, true
	if extra != "" {
		var args struct {
			Seed     *int64   `json:"seed"`
			Strength *float64 `json:"strength"`
		}
		if err := json.Unmarshal([]byte(extra), &args); err != nil {
			return invalid("prompt", "", "invalid sd_cpp_extra_args")
		}
		if args.Seed != nil {
			j.seed = uint64(*args.Seed)
		}
		if args.Strength != nil {
			j.strength = *args.Strength
		}
	}
	j.w, j.h = 512, 512
	if s := form.str("size"); s != "" {
		w, h, ok := parseSize(s)
		if !ok {
			return invalid("size", "", "invalid params")
		}
		j.w, j.h = w, h
	}
	return nil
}

// moderation is the real refusal body: gpt-image models answer moderation_blocked,
// DALL-E content_policy_violation.
func moderation(dalle bool) *problem {
	if dalle {
		return &problem{status: http.StatusBadRequest, code: "content_policy_violation",
			message: "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system."}
	}
	return &problem{status: http.StatusBadRequest, code: "moderation_blocked",
		message: "Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID req_fake. safety_violations=[violence]."}
}

// answer writes the ImagesResponse: b64_json, or a URL for DALL-E models.
func (f *Fake) answer(w http.ResponseWriter, r *http.Request, j *job, pic []byte) {
	created := time.Now().Unix()
	if f.cfg.Flavor == "sdcpp" {
		writeJSON(w, http.StatusOK, map[string]any{"created": created, "output_format": j.format,
			"data": []map[string]any{{"b64_json": encodeB64(pic)}}})
		return
	}
	item := map[string]any{}
	if j.b64 {
		item["b64_json"] = encodeB64(pic)
	} else {
		name := fmt.Sprintf("img-%d-%d.png", created, fakekit.Hash(j.prompt, string(pic[:min(len(pic), 64)])))
		f.mu.Lock()
		f.files[name] = pic
		f.mu.Unlock()
		item["url"] = "http://" + r.Host + "/files/" + name
	}
	if j.dalle {
		item["revised_prompt"] = j.prompt
		writeJSON(w, http.StatusOK, map[string]any{"created": created, "data": []any{item}})
		return
	}
	quality := j.quality
	if quality == "" || quality == "auto" {
		quality = "medium"
	}
	resp := map[string]any{
		"created": created, "data": []any{item}, "background": "opaque", "output_format": j.format,
		"quality": quality,
		"usage": map[string]any{"total_tokens": 100, "input_tokens": 50, "output_tokens": 50,
			"input_tokens_details": map[string]any{"text_tokens": 10, "image_tokens": 40}},
	}
	if size := sizeLabel(j.w, j.h); size == "1024x1024" || size == "1536x1024" || size == "1024x1536" {
		resp["size"] = size // the schema's enum knows only these
	}
	writeJSON(w, http.StatusOK, resp)
}
