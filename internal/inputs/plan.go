package inputs

import (
	"fmt"
	"image"
	"math"

	"golang.org/x/image/draw"

	"thumbforge/internal/jpegscale"
	"thumbforge/internal/pngscale"
)

// shape is what an image's header must announce to be decoded.
type shape struct {
	maxPixels, minSide, maxAspect int
}

func (l *Loader) shape() shape {
	return shape{maxPixels: l.cfg.MaxPixels, minSide: l.cfg.MinSide, maxAspect: l.cfg.MaxAspect}
}

// check refuses a header whose image is too thin (INVALID_IMAGE) or has too many pixels
// (IMAGE_TOO_LARGE); thin comes first: a 50,000,000x1 image is not a thumbnail's input
// whatever its size.
func (s shape) check(field string, w, h int) error {
	short, long := min(w, h), max(w, h)
	switch {
	case short < s.minSide:
		return invalidImage(field, fmt.Sprintf("the image is %dx%d pixels; its shorter side must be at least %d pixels", w, h, s.minSide), nil)
	case int64(long) > int64(short)*int64(s.maxAspect):
		return invalidImage(field, fmt.Sprintf("the image is %dx%d pixels; its aspect ratio must be at most %d:1", w, h, s.maxAspect), nil)
	case int64(w)*int64(h) > int64(s.maxPixels):
		return tooLarge(field, fmt.Sprintf("the image is %dx%d pixels; at most %d pixels are accepted", w, h, s.maxPixels))
	}
	return nil
}

// MaxKeptPixels bounds an input as kept after decoding: its shorter side is brought down
// to DecodeMinSide, and an image so elongated that this still leaves more pixels is brought
// down further (an output crop uses a small part of it anyway).
const MaxKeptPixels = 8 << 20

// plan is how an input will be decoded: the memory the decode takes at its peak, and the
// size the result is reduced to.
type plan struct {
	peak int64
	w, h int
	// png: decoded by pngscale straight to w x h.
	png bool
	// fallback is what image/jpeg takes when the fast decoder, which peak counts on,
	// fails on the file (reserved then, in place of peak).
	fallback int64
}

// plan estimates, from the header alone, the bytes decoding takes: the decoder's own
// buffers where it has them (at full size for image/png, image/gif and x/image/webp), and
// the reduced result.
func (l *Loader) plan(f Format, data []byte, w, h int) plan {
	p := plan{w: w, h: h}
	if s := keptScale(w, h, l.cfg.DecodeMinSide); s < 1 {
		p.w, p.h = max(1, int(float64(w)*s)), max(1, int(float64(h)*s))
	}
	px := int64(w) * int64(h)
	kept := int64(p.w) * int64(p.h) * 4
	switch f {
	case FormatJPEG:
		// image/jpeg: the planes (at most 3 bytes a pixel with a fourth for an
		// intermediate) and, for progressive files, its coefficients (a 256-byte block
		// per 64 pixels of each of up to three components, 12 bytes a pixel).
		p.fallback = 4*px + 4*4*px + kept
		p.peak = p.fallback
		if l.cfg.Decoder != nil {
			if info, err := jpegscale.Inspect(data, l.cfg.DecodeMinSide); err == nil {
				p.peak = info.Bytes
			}
		}
	case FormatPNG:
		p.peak = px*pngBytesPerPixel(data) + kept
		if hdr, err := pngscale.DecodeConfig(data); err == nil && (p.w < w || p.h < h || hdr.Depth == 16) {
			p.png, p.peak = true, hdr.Bytes(p.w, p.h)
		}
	case FormatGIF:
		p.peak = px + kept // paletted, one byte a pixel
	default: // WebP
		p.peak = px*webpBytesPerPixel(data) + kept
	}
	return p
}

// keptScale is the factor an input is reduced by after decoding (1: kept as decoded).
func keptScale(w, h, minSide int) float64 {
	if minSide <= 0 {
		return 1
	}
	s := float64(minSide) / float64(min(w, h))
	if limit := math.Sqrt(float64(MaxKeptPixels) / (float64(w) * float64(h))); limit < s {
		s = limit
	}
	// Resampling an image barely larger than needed costs more than it saves.
	if s > 0.75 {
		return 1
	}
	return s
}

// pngBytesPerPixel is what image/png allocates per pixel for the header's colour type and
// depth (RGB becomes RGBA; 16-bit samples stay 16-bit), twice for interlaced files, whose
// passes are decoded apart and then merged.
func pngBytesPerPixel(data []byte) int64 {
	if len(data) < 29 {
		return 8
	}
	depth, ctype, interlace := data[24], data[25], data[28]
	var n int64
	switch ctype {
	case 0, 3: // gray, palette
		n = 1
	case 4: // gray + alpha
		n = 2
	default: // RGB and RGBA decode to 4 channels
		n = 4
	}
	if depth == 16 {
		n *= 2
	}
	if interlace != 0 {
		n *= 2
	}
	return n
}

// webpBytesPerPixel is x/image/webp's allocation: YCbCr (1.5 bytes) and alpha for lossy
// files, a word per pixel plus the NRGBA result for lossless (and unknown) ones.
func webpBytesPerPixel(data []byte) int64 {
	if len(data) >= 16 && string(data[12:16]) == "VP8 " {
		return 2
	}
	return 8
}

// reduce scales img to w x h when that is smaller, into RGBA, so that the full-size
// decode can be dropped at once.
func reduce(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if w >= b.Dx() && h >= b.Dy() {
		return img
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	return out
}

// pixBytes is the memory an image's pixels take.
func pixBytes(img image.Image) int64 {
	switch m := img.(type) {
	case *image.RGBA:
		return int64(len(m.Pix))
	case *image.NRGBA:
		return int64(len(m.Pix))
	case *image.Gray:
		return int64(len(m.Pix))
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	case *image.Paletted:
		return int64(len(m.Pix))
	case *image.RGBA64:
		return int64(len(m.Pix))
	case *image.NRGBA64:
		return int64(len(m.Pix))
	case *image.Gray16:
		return int64(len(m.Pix))
	case *image.CMYK:
		return int64(len(m.Pix))
	case *image.NYCbCrA:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr) + len(m.A))
	}
	b := img.Bounds()
	return int64(b.Dx()) * int64(b.Dy()) * 8
}
