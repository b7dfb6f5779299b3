// Package jpegscale decodes baseline JPEG images at a reduced scale directly in
// the DCT domain ("shrink-on-load"): at 1/2, 1/4 and 1/8 scale only the
// low-frequency coefficients of each 8x8 block are inverse-transformed, so a
// 4000x3000 photo never materialises at full size when a thumbnail is wanted.
//
// Only baseline and extended sequential Huffman JPEGs with 8-bit samples and
// one (grayscale) or three (YCbCr) components are decoded; everything else
// (progressive, arithmetic, lossless, 12-bit, CMYK/YCCK, RGB) yields
// ErrUnsupported so the caller can fall back to image/jpeg.
//
// EXIF orientation is NOT applied: the pixels come out as stored, exactly like
// image/jpeg. Callers that honour orientation must rotate afterwards.
package jpegscale

import (
	"errors"
	"image"
	"image/color"
	"io"
)

// ErrUnsupported reports a valid-looking JPEG this decoder does not handle
// (progressive, arithmetic, lossless, 12-bit, 4-component, RGB); fall back to image/jpeg.
var ErrUnsupported = errors.New("jpegscale: unsupported JPEG variant")

// ErrFormat reports data that is not a well-formed JPEG.
var ErrFormat = errors.New("jpegscale: invalid JPEG")

// ErrTooLarge reports an image whose pixel count exceeds MaxPixels.
var ErrTooLarge = errors.New("jpegscale: image too large")

// MaxPixels is the largest source image (width*height) accepted; it is checked
// before any pixel memory is allocated so decompression bombs are refused cheaply.
const MaxPixels = 100_000_000

// Scale returns the denominator d in {1,2,4,8} that Decode uses for a w x h
// image: the largest d with min(ceil(w/d), ceil(h/d)) >= minSide.
func Scale(w, h, minSide int) int {
	if minSide <= 0 {
		return 1
	}
	for _, d := range [...]int{8, 4, 2} {
		if min(ceilDiv(w, d), ceilDiv(h, d)) >= minSide {
			return d
		}
	}
	return 1
}

// DecodeConfig returns the dimensions and colour model of a JPEG that Decode
// can handle; it returns ErrUnsupported for the variants Decode refuses.
func DecodeConfig(data []byte) (image.Config, error) {
	var d decoder
	if err := d.parse(data, false, 0); err != nil {
		return image.Config{}, err
	}
	cfg := image.Config{Width: d.width, Height: d.height, ColorModel: color.YCbCrModel}
	if len(d.comps) == 1 {
		cfg.ColorModel = color.GrayModel
	}
	return cfg, nil
}

// Decode decodes a JPEG at the largest scale 1/d (d in {1,2,4,8}) whose
// shorter output side is still at least minSide pixels (d=1 when minSide <= 0).
// The result is an *image.Gray or an *image.YCbCr of size ceil(W/d) x ceil(H/d)
// with the file's chroma subsampling. EXIF orientation is not applied.
func Decode(data []byte, minSide int) (image.Image, error) {
	var d decoder
	if err := d.parse(data, true, minSide); err != nil {
		return nil, err
	}
	return d.image(), nil
}

// image wraps the decoded planes; they are padded to whole MCUs, the Rect
// trims the padding off.
func (d *decoder) image() image.Image {
	w, h := ceilDiv(d.width, d.scale), ceilDiv(d.height, d.scale)
	r := image.Rect(0, 0, w, h)
	y := &d.comps[0]
	if len(d.comps) == 1 {
		return &image.Gray{Pix: y.plane, Stride: y.stride, Rect: r}
	}
	return &image.YCbCr{
		Y: y.plane, Cb: d.comps[1].plane, Cr: d.comps[2].plane,
		YStride: y.stride, CStride: d.comps[1].stride,
		SubsampleRatio: d.ratio, Rect: r,
	}
}

// setup chooses the scale and allocates the output planes, after bounding the
// work by the amount of compressed data actually present.
func (d *decoder) setup(minSide int) error {
	d.scale = Scale(d.width, d.height, minSide)
	d.mcusX = ceilDiv(d.width, 8*d.hmax)
	d.mcusY = ceilDiv(d.height, 8*d.vmax)
	blocks := 0
	for i := range d.comps {
		c := &d.comps[i]
		c.bw = ceilDiv(ceilDiv(d.width*c.h, d.hmax), 8)
		c.bh = ceilDiv(ceilDiv(d.height*c.v, d.vmax), 8)
		blocks += c.bw * c.bh
	}
	// Every block costs at least two bits (a DC and an EOB code), so a file
	// claiming more blocks than that is truncated: refuse before allocating.
	if blocks/4 > len(d.data) {
		return io.ErrUnexpectedEOF
	}
	bs := 8 / d.scale
	for i := range d.comps {
		c := &d.comps[i]
		c.stride = d.mcusX * c.h * bs
		c.plane = make([]byte, c.stride*d.mcusY*c.v*bs)
	}
	return nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
