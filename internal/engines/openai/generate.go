package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"thumbforge/internal/engines"
)

// maxAnswer bounds an answer's size: a 3840x2160 PNG in base64 stays well under it.
const maxAnswer = 96 << 20

// Generate sends a text-only request to /images/generations and everything with input
// images to /images/edits, and returns the picture's bytes.
func (b *Backend) Generate(ctx context.Context, r *engines.Request) ([]byte, error) {
	var req *http.Request
	var err error
	if r.Op == engines.OpGenerate && r.Image == nil && r.Support == nil && len(r.Faces) == 0 && len(r.Styles) == 0 {
		req, err = b.generations(ctx, r)
	} else {
		req, err = b.edits(ctx, r)
	}
	if err != nil {
		return nil, err
	}
	body, err := engines.Call(b.client, req, maxAnswer, refused)
	if err != nil {
		return nil, err
	}
	return b.picture(ctx, body)
}

// quality is the tier's quality for models that take one (unknown model names, such as
// a local server's, are sent none).
func (b *Backend) quality(r *engines.Request) string {
	switch {
	case b.family() == dalle3 && r.Tier.Level >= 3:
		return "hd"
	case b.family() == dalle3:
		return "standard"
	case strings.HasPrefix(b.model, "gpt-image-"):
		return r.Tier.Quality
	}
	return ""
}

// generations is the JSON request of CreateImageRequest.
func (b *Backend) generations(ctx context.Context, r *engines.Request) (*http.Request, error) {
	body := map[string]any{"model": b.model, "prompt": b.prompt(r), "size": sizeOf(r), "n": 1}
	if q := b.quality(r); q != "" {
		body["quality"] = q
	}
	if b.takesJPEG() {
		body["output_format"], body["output_compression"] = "jpeg", jpegCompression
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := b.newRequest(ctx, http.MethodPost, "/images/generations", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// edits is the multipart request of CreateImageEditRequest: the images as repeated
// image[] parts (the first is the one edited and masked), the mask as an RGBA PNG with
// alpha 0 where the edit applies.
func (b *Backend) edits(ctx context.Context, r *engines.Request) (*http.Request, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fields := [][2]string{{"model", b.model}, {"prompt", b.prompt(r)}, {"size", sizeOf(r)}, {"n", "1"}}
	if q := b.quality(r); q != "" {
		fields = append(fields, [2]string{"quality", q})
	}
	if b.takesJPEG() {
		fields = append(fields, [2]string{"output_format", "jpeg"}, [2]string{"output_compression", strconv.Itoa(jpegCompression)})
	}
	if b.takesFidelity() && (r.Weight == "high" || len(r.Faces) > 0) {
		fields = append(fields, [2]string{"input_fidelity", "high"})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	var images []image.Image
	if r.Image != nil {
		images = append(images, r.Image)
	}
	if r.Support != nil {
		images = append(images, r.Support)
	}
	images = append(images, r.Faces...)
	images = append(images, r.Styles...)
	for i, img := range images {
		if err := writePNG(mw, "image[]", fmt.Sprintf("image-%d.png", i), img); err != nil {
			return nil, err
		}
	}
	if r.Mask != nil && r.Image != nil {
		if err := writePNG(mw, "mask", "mask.png", maskAlpha(r.Mask)); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	req, err := b.newRequest(ctx, http.MethodPost, "/images/edits", &buf)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req, nil
}

// prompt is the request's prompt; for sd-server it carries sd.cpp's own parameters in
// <sd_cpp_extra_args> (the server strips them before generating).
func (b *Backend) prompt(r *engines.Request) string {
	if b.family() != sdcpp {
		return r.Prompt
	}
	extra := map[string]any{
		"seed":          int64(r.Seed & (1<<31 - 1)),
		"sample_params": map[string]any{"sample_steps": r.Tier.Steps},
	}
	if r.Negative != "" {
		extra["negative_prompt"] = r.Negative
	}
	if r.Op == engines.OpGenerate && r.Image != nil {
		extra["strength"] = r.Strength
	}
	data, _ := json.Marshal(extra) // a map of plain values always marshals
	return r.Prompt + " <sd_cpp_extra_args>" + string(data) + "</sd_cpp_extra_args>"
}

// jpegCompression is the quality of the JPEG answers asked for: near-lossless, since
// thumbforge crops and re-encodes them, and a JPEG decodes in a quarter of a PNG's time.
const jpegCompression = 95

// takesJPEG: GPT image models and sd-server answer JPEG when asked (output_format);
// DALL-E answers PNG only, and other servers are not known to take the field.
func (b *Backend) takesJPEG() bool {
	return strings.HasPrefix(b.model, "gpt-image-") || b.family() == sdcpp
}

// takesFidelity: input_fidelity is for gpt-image-1 and later, not the mini models.
func (b *Backend) takesFidelity() bool {
	return strings.HasPrefix(b.model, "gpt-image-") && !strings.Contains(b.model, "mini")
}

func sizeOf(r *engines.Request) string {
	return strconv.Itoa(r.Width) + "x" + strconv.Itoa(r.Height)
}

// writePNG adds img to the form as a PNG file part.
func writePNG(mw *multipart.Writer, field, name string, img image.Image) error {
	data, err := engines.EncodePNG(img)
	if err != nil {
		return err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, name))
	h.Set("Content-Type", "image/png")
	w, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// maskAlpha turns a mask (white = edit) into OpenAI's form, an RGBA image whose alpha
// is 0 where the edit applies, and keeps the colour white there too: sd-server reads
// masks as grey levels, white = repaint, so one file means the same to both.
func maskAlpha(m *image.Gray) *image.NRGBA {
	out := image.NewNRGBA(m.Rect)
	for i, v := range m.Pix {
		p := out.Pix[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = v, v, v, 255-v
	}
	return out
}

// answer is ImagesResponse, as much of it as is read.
type answer struct {
	Data []struct {
		B64JSON []byte `json:"b64_json"` // encoding/json decodes base64 into a []byte in one step
		URL     string `json:"url"`
	} `json:"data"`
}

// picture reads the first image of an answer: its base64, or the file at its URL.
func (b *Backend) picture(ctx context.Context, body []byte) ([]byte, error) {
	if data, ok := quickB64(body); ok {
		return data, nil
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, engines.Failed("the answer is not an images response (or b64_json is not base64): %v", err)
	}
	if len(a.Data) == 0 {
		return nil, engines.Failed("the answer has no image")
	}
	switch d := a.Data[0]; {
	case len(d.B64JSON) > 0:
		return d.B64JSON, nil
	case d.URL != "":
		return b.fetch(ctx, d.URL)
	}
	return nil, engines.Failed("the answer's image has neither b64_json nor url")
}

// quickB64 decodes the b64_json of an answer that holds a single image without running
// a JSON parser over a megabyte of base64 twice (validation, then decoding): it finds the
// one "b64_json" string and decodes it in place. Anything unusual (no such key, two of
// them, an escape inside the string, characters that are not base64) is left to the full
// parse.
func quickB64(body []byte) ([]byte, bool) {
	key := []byte(`"b64_json"`)
	i := bytes.Index(body, key)
	if i < 0 || bytes.Index(body[i+len(key):], key) >= 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 || bytes.IndexByte(rest[1:1+end], '\\') >= 0 {
		return nil, false
	}
	enc := rest[1 : 1+end]
	data := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(data, enc)
	if err != nil || n == 0 {
		return nil, false
	}
	return data[:n], true
}

// fetch downloads an answer's image URL. The key is not sent: the URL may be another
// host's (OpenAI's are signed storage links).
func (b *Backend) fetch(ctx context.Context, url string) ([]byte, error) {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return nil, engines.Failed("the answer's image URL is not http(s)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, engines.Failed("the answer's image URL: %v", err)
	}
	return engines.Call(b.client, req, maxAnswer, nil)
}

// refused tells a safety refusal from other errors: OpenAI answers 400 with code
// moderation_blocked (GPT image models) or content_policy_violation (DALL-E).
func refused(status int, body []byte) bool {
	if status != http.StatusBadRequest {
		return false
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return false
	}
	return e.Error.Code == "moderation_blocked" || e.Error.Code == "content_policy_violation"
}
