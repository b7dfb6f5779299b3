package inputs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"

	"thumbforge/internal/jpegscale"
	"thumbforge/internal/memory"
	"thumbforge/internal/pngscale"
)

// Format is an image container recognised by its leading bytes.
type Format string

// The accepted formats; FormatUnknown is everything else.
const (
	FormatUnknown Format = ""
	FormatJPEG    Format = "jpeg"
	FormatPNG     Format = "png"
	FormatGIF     Format = "gif"
	FormatWebP    Format = "webp"
)

const msgUnsupported = "unsupported image format; use JPEG, PNG, WebP or GIF"

// Sniff returns the format of data judged by its magic bytes, never by a declared type.
func Sniff(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return FormatGIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return FormatWebP
	}
	return FormatUnknown
}

// codec pairs the header and full decoders of one format.
type codec struct {
	config func(*bytes.Reader) (image.Config, error)
	decode func(*bytes.Reader) (image.Image, error)
}

var codecs = map[Format]codec{
	FormatJPEG: {func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) },
		func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }},
	FormatPNG: {func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) },
		func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }},
	// gif.Decode returns the first frame, which is what a still input means.
	FormatGIF: {func(r *bytes.Reader) (image.Config, error) { return gif.DecodeConfig(r) },
		func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) }},
	FormatWebP: {func(r *bytes.Reader) (image.Config, error) { return webp.DecodeConfig(r) },
		func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) }},
}

// Decode decodes data as JPEG, PNG, WebP or GIF (first frame), sniffing the format from
// the content, at the size inputs are needed (DecodeMinSide). The header is read first:
// the shape and pixel count are checked, then the memory the decode will take is reserved
// from the budget (waiting in line), so that a small file declaring huge dimensions costs
// nothing. What the result keeps stays reserved until ctx's memory scope ends. Errors are
// INVALID_IMAGE or IMAGE_TOO_LARGE naming field, TOO_MANY_REQUESTS when memory could not
// be had in time, or ctx's error.
func (l *Loader) Decode(ctx context.Context, data []byte, field string) (image.Image, error) {
	f := Sniff(data)
	c, ok := codecs[f]
	if !ok {
		return nil, invalidImage(field, msgUnsupported, nil)
	}
	cfg, err := c.config(bytes.NewReader(data))
	if err != nil {
		return nil, invalidImage(field, fmt.Sprintf("the %s image is corrupt", upper(f)), err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, invalidImage(field, fmt.Sprintf("the %s image has no pixels", upper(f)), nil)
	}
	if err := l.shape().check(field, cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	p := l.plan(f, data, cfg.Width, cfg.Height)
	res, err := l.reserve(ctx, field, p.peak)
	if err != nil {
		return nil, err
	}
	img, res, err := l.decodePlanned(ctx, field, f, c, data, p, res)
	if err != nil {
		res.Release()
		return nil, err
	}
	res.Shrink(pixBytes(img))
	memory.Hold(ctx, res)
	return img, nil
}

// reserve takes n bytes of the budget for decoding an input; an image that could never
// fit one share of it is IMAGE_TOO_LARGE. Without a budget nothing is counted.
func (l *Loader) reserve(ctx context.Context, field string, n int64) (*memory.Reservation, error) {
	if l.cfg.Budget == nil {
		return nil, nil
	}
	if n > l.cfg.Budget.Share() {
		return nil, tooLarge(field, fmt.Sprintf("decoding the image would take %s of memory; at most %s is available to one image",
			memory.FormatSize(n), memory.FormatSize(l.cfg.Budget.Share())))
	}
	return l.cfg.Budget.Reserve(ctx, n)
}

// decodePlanned decodes at the planned size: JPEGs (baseline and progressive) scaled in
// the DCT when the fast decoder takes them, PNGs reduced row by row while they are read,
// everything else decoded whole and reduced at once. When the fast JPEG decoder fails,
// image/jpeg decodes at full size, and only after what that takes was reserved in place
// of the planned amount. It returns the reservation that now covers the result.
func (l *Loader) decodePlanned(ctx context.Context, field string, f Format, c codec, data []byte, p plan,
	res *memory.Reservation) (image.Image, *memory.Reservation, error) {
	corrupt := func(err error) error {
		return invalidImage(field, fmt.Sprintf("the %s image is corrupt", upper(f)), err)
	}
	switch {
	case p.png:
		img, err := pngscale.Decode(data, p.w, p.h)
		if err != nil {
			return nil, res, corrupt(err)
		}
		return img, res, nil
	case f == FormatJPEG && l.cfg.Decoder != nil:
		img, err := l.cfg.Decoder(data, l.cfg.DecodeMinSide)
		switch {
		case err == nil && img != nil:
			return img, res, nil
		case errors.Is(err, jpegscale.ErrTooManyScans):
			// image/jpeg would spend its CPU on every one of them.
			return nil, res, invalidImage(field, fmt.Sprintf("the JPEG image has more than %d progressive scans", jpegscale.MaxScans), err)
		}
		if p.fallback > p.peak {
			res.Release()
			var err error
			if res, err = l.reserve(ctx, field, p.fallback); err != nil {
				return nil, nil, err
			}
		}
	}
	img, err := c.decode(bytes.NewReader(data))
	if err != nil {
		return nil, res, corrupt(err)
	}
	return reduce(img, p.w, p.h), res, nil
}

func upper(f Format) string {
	switch f {
	case FormatJPEG:
		return "JPEG"
	case FormatWebP:
		return "WebP"
	}
	return string(bytes.ToUpper([]byte(f)))
}
