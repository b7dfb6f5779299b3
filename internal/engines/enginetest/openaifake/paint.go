package openaifake

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"

	_ "golang.org/x/image/webp"
	_ "image/jpeg" // inputs may be PNG, JPEG or WebP

	"thumbforge/internal/engines/enginetest/fakekit"
)

// decodeImages decodes the image parts; a part that is not an image is the API's
// invalid_image_file.
func decodeImages(files [][]byte) ([]image.Image, *problem) {
	out := make([]image.Image, len(files))
	for i, b := range files {
		img, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, invalid("image", "invalid_image_file", "Invalid image file or mode for image %d, please check your image file.", i+1)
		}
		out[i] = img
	}
	return out, nil
}

// readMask checks the mask as OpenAI does (a PNG with an alpha channel, the first
// image's size) and returns where to repaint: white where alpha is 0. In the sdcpp
// flavor the mask is read as grey levels, white = repaint.
func readMask(data []byte, first image.Image, sdcpp bool, w, h int) (*image.Gray, *problem) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, invalid("mask", "invalid_image_file", "Invalid mask image file: the mask must be a PNG.")
	}
	if sdcpp {
		return fakekit.Channel(toGrey(img), 0, false, w, h), nil
	}
	if !hasAlpha(data) {
		return nil, invalid("mask", "invalid_image_file", "Invalid mask image file: the mask must have an alpha channel.")
	}
	if img.Bounds().Size() != first.Bounds().Size() {
		return nil, invalid("mask", "invalid_image_file", "Invalid mask image: the mask and the image must have the same dimensions.")
	}
	return fakekit.Channel(img, 3, true, w, h), nil
}

// hasAlpha reports whether a PNG carries an alpha channel: colour type 4 or 6 in its
// IHDR chunk (byte 25 of the file), or a tRNS chunk.
func hasAlpha(data []byte) bool {
	if len(data) < 26 {
		return false
	}
	return data[25] == 4 || data[25] == 6 || bytes.Contains(data, []byte("tRNS"))
}

// toGrey is img's luminance as an RGBA image, as sd-server loads masks: one channel from
// the stored colour, alpha ignored (stb_image does not premultiply).
func toGrey(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			v := uint8((299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000)
			out.SetRGBA(x-b.Min.X, y-b.Min.Y, color.RGBA{v, v, v, 255})
		}
	}
	return out
}

// edit paints an edit: the first image moved toward the prompt's scene by strength where
// the mask repaints; outside it a slight shift (a model's mask is guidance, not a crop;
// none in sdcpp, which composites); every further image inset into the picture.
func edit(images []image.Image, mask *image.Gray, seed uint64, prompt string, strength float64, sdcpp bool, w, h int) *image.RGBA {
	base := fakekit.Resize(images[0], w, h)
	gen := fakekit.Scene(seed, prompt, w, h)
	out := fakekit.Blend(base, gen, strength, mask)
	if mask != nil && !sdcpp {
		inverse := image.NewGray(mask.Rect)
		for i, v := range mask.Pix {
			inverse.Pix[i] = 255 - v
		}
		out = fakekit.Blend(out, gen, 0.08, inverse)
	}
	for i, ref := range images[1:] {
		inset(out, ref, i, len(images)-1, mask)
	}
	return out
}

// inset draws ref (keeping its aspect) in the i-th of n slots across the width, at most
// half the picture's height, only where the mask repaints (everywhere without a mask).
func inset(dst *image.RGBA, ref image.Image, i, n int, mask *image.Gray) {
	W, H := dst.Rect.Dx(), dst.Rect.Dy()
	b := ref.Bounds()
	h := min(H/2, W/n*b.Dy()/max(1, b.Dx()))
	w := max(1, h*b.Dx()/max(1, b.Dy()))
	cx := W * (2*i + 1) / (2 * n)
	x0, y0 := max(0, cx-w/2), H/4
	src := fakekit.Resize(ref, w, h)
	for y := 0; y < h && y0+y < H; y++ {
		for x := 0; x < w && x0+x < W; x++ {
			if mask != nil && mask.Pix[mask.PixOffset(x0+x, y0+y)] < 128 {
				continue
			}
			copy(dst.Pix[dst.PixOffset(x0+x, y0+y):][:4], src.Pix[src.PixOffset(x, y):][:4])
		}
	}
}

// extraArgs removes sd.cpp's <sd_cpp_extra_args>…</sd_cpp_extra_args> from a prompt and
// returns the prompt and the JSON inside ("" if none).
func extraArgs(prompt string) (string, string) {
	const open, end = "<sd_cpp_extra_args>", "</sd_cpp_extra_args>"
	i := strings.Index(prompt, open)
	j := strings.Index(prompt, end)
	if i < 0 || j < i {
		return prompt, ""
	}
	return strings.TrimSpace(prompt[:i] + prompt[j+len(end):]), prompt[i+len(open) : j]
}

// Photo is src scaled to w x h with fine grain: an answer (Config.Answer) as large and
// as slow to decode as a model's picture, where a smooth painted scene compresses far
// better.
func Photo(src image.Image, w, h int) *image.RGBA {
	img := fakekit.Resize(src, w, h)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		if i%4 != 3 {
			img.Pix[i] = uint8(min(255, max(0, int(img.Pix[i])+r.IntN(13)-6)))
		}
	}
	return img
}
