package sdapifake

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // init images may be JPEG
	_ "image/png"
	"strings"

	"thumbforge/internal/engines/enginetest/fakekit"
)

// job is a validated generation.
type job struct {
	prompt  string
	seed    int64
	w, h    int
	steps   int
	denoise float64
	init    *image.RGBA // img2img start, resized to w x h
	mask    *image.Gray // repaint where white; nil everywhere
	fill    int         // inpainting_fill
}

// httpError is an error answered with a status and a detail text.
type httpError struct {
	status int
	detail string
}

// newJob reads a request's generation parameters with A1111's defaults.
func newJob(req map[string]any, img2img bool) (*job, *httpError) {
	j := &job{
		prompt: str(req, "prompt"),
		seed:   int64(number(req, "seed", -1)),
		w:      int(number(req, "width", 512)) / 8 * 8,
		h:      int(number(req, "height", 512)) / 8 * 8,
		steps:  int(number(req, "steps", 50)),
		fill:   int(number(req, "inpainting_fill", 0)),
	}
	if j.w < 64 || j.h < 64 || j.w > 4096 || j.h > 4096 || j.steps < 1 || j.steps > 150 {
		return nil, &httpError{422, "width, height or steps out of range"}
	}
	if j.seed == -1 {
		j.seed = int64(fakekit.Hash(string(randomBytes(8))) >> 1)
	}
	if !img2img {
		j.denoise = 1
		return j, nil
	}
	j.denoise = number(req, "denoising_strength", 0.75)
	if j.denoise < 0 || j.denoise > 1 {
		return nil, &httpError{422, "denoising_strength must be between 0 and 1"}
	}
	inits, _ := req["init_images"].([]any)
	if len(inits) == 0 {
		return nil, &httpError{404, "Init image not found"}
	}
	s, _ := inits[0].(string)
	img, err := decodeB64(s)
	if err != nil {
		return nil, &httpError{500, "Invalid encoded image"}
	}
	j.init = fakekit.Resize(img, j.w, j.h)
	if m, ok := req["mask"].(string); ok && m != "" {
		mimg, err := decodeB64(m)
		if err != nil {
			return nil, &httpError{500, "Invalid encoded image"}
		}
		j.mask = binaryMask(mimg, j.w, j.h, number(req, "inpainting_mask_invert", 0) != 0)
	}
	return j, nil
}

// decodeB64 decodes a base64 image, with or without a data: prefix.
func decodeB64(s string) (image.Image, error) {
	if i := strings.Index(s, ";base64,"); strings.HasPrefix(s, "data:") && i > 0 {
		s = s[i+len(";base64,"):]
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	return img, err
}

// binaryMask is A1111's create_binary_mask: the alpha channel of a mask that has
// transparency, else its luminance; then thresholded.
func binaryMask(img image.Image, w, h int, invert bool) *image.Gray {
	rgba := fakekit.Resize(img, w, h)
	useAlpha := false
	for i := 3; i < len(rgba.Pix); i += 4 {
		if rgba.Pix[i] != 255 {
			useAlpha = true
			break
		}
	}
	out := image.NewGray(rgba.Rect)
	for i := range out.Pix {
		p := rgba.Pix[4*i : 4*i+4]
		v := uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2])) / 1000)
		if useAlpha {
			v = p[3]
		}
		white := v > 128
		if invert {
			white = !white
		}
		if white {
			out.Pix[i] = 255
		}
	}
	return out
}

// paint renders the job after a fraction of its steps (1 when it ran to the end).
func (j *job) paint(done float64) *image.RGBA {
	gen := fakekit.Scene(uint64(j.seed), j.prompt, j.w, j.h)
	if j.init == nil {
		if done < 1 { // an interrupted txt2img returns a half-denoised picture
			grey := image.NewRGBA(gen.Rect)
			draw.Draw(grey, grey.Rect, image.NewUniform(color.RGBA{128, 128, 128, 255}), image.Point{}, draw.Src)
			return fakekit.Blend(grey, gen, done, nil)
		}
		return gen
	}
	base := j.init
	if j.mask != nil && j.fill != 1 { // only "original" starts the masked area from the image
		base = fakekit.Blend(j.init, gen, 0.5, j.mask)
	}
	return fakekit.Blend(base, gen, j.denoise*done, j.mask)
}
