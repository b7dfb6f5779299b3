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
	return decode(data, field, l.cfg.MaxPixels, l.cfg.Decoder, l.cfg.DecodeMinSide)
}

// decode is Decode with explicit limits, shared with the zip reader.
func decode(data []byte, field string, maxPixels int, fast JPEGDecoder, minSide int) (image.Image, error) {
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
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, tooLarge(field, fmt.Sprintf("the image is %dx%d pixels; at most %d pixels are accepted",
			cfg.Width, cfg.Height, maxPixels))
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
