package engines

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"

	_ "golang.org/x/image/webp"

	_ "image/jpeg" // backends answer PNG, JPEG or WebP
	"thumbforge/internal/jpegscale"
)

// MaxPicturePixels bounds a backend's picture (a 3840x2160 gpt-image-2 frame is 8.3 MP):
// more is a backend gone wrong, refused before decoding.
const MaxPicturePixels = 40_000_000

// DecodeFunc decodes a backend's picture.
type DecodeFunc func(ctx context.Context, data []byte) (image.Image, error)

// DecodePicture is the one place a backend's picture is decoded (Options.Decode lets the
// process's memory budget wrap it): the header is read first, and a picture that is not
// an image, or is absurdly large or small, is a backend failure.
func DecodePicture(ctx context.Context, data []byte) (image.Image, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, Failed("the picture does not decode (%d bytes): %v", len(data), err)
	}
	if cfg.Width < 16 || cfg.Height < 16 || cfg.Width*cfg.Height > MaxPicturePixels {
		return nil, Failed("the %s picture is %dx%d", format, cfg.Width, cfg.Height)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if format == "jpeg" {
		// The project's decoder is twice as fast as image/jpeg on baseline files; the
		// variants it does not handle fall through to the standard one.
		if img, err := jpegscale.Decode(data, 0); err == nil {
			return img, nil
		}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, Failed("the %s picture does not decode: %v", format, err)
	}
	return img, nil
}

// EncodePNG encodes an input image for a backend, fast rather than small (the bytes
// travel once, on a local network or to an API that takes 50 MB).
func EncodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode PNG: %w", err)
	}
	return b.Bytes(), nil
}
