package inputs

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"
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
// the content. The pixel count is checked from the header before the full decode so a
// small file declaring huge dimensions costs nothing. JPEGs go through Config.Decoder
// when one is set. Errors are INVALID_IMAGE or IMAGE_TOO_LARGE naming field.
func (l *Loader) Decode(data []byte, field string) (image.Image, error) {
	return decode(data, field, l.shape(), l.cfg.Decoder, l.cfg.DecodeMinSide)
}

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

// decode is Decode with explicit limits, shared with the zip reader.
func decode(data []byte, field string, sh shape, fast JPEGDecoder, minSide int) (image.Image, error) {
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
	if err := sh.check(field, cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	if f == FormatJPEG && fast != nil {
		if img, err := fast(data, minSide); err == nil && img != nil {
			return img, nil
		}
	}
	img, err := c.decode(bytes.NewReader(data))
	if err != nil {
		return nil, invalidImage(field, fmt.Sprintf("the %s image is corrupt", upper(f)), err)
	}
	return img, nil
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
