// Package jpegscale decodes baseline JPEG images at a reduced scale directly in
// the DCT domain ("shrink-on-load"): at 1/2, 1/4 and 1/8 scale only the
// low-frequency coefficients of each 8x8 block are inverse-transformed, so a
// 4000x3000 photo never materialises at full size when a thumbnail is wanted.
//
// Baseline, extended sequential and progressive Huffman JPEGs with 8-bit samples
// and one (grayscale) or three (YCbCr) components are decoded; everything else
// (arithmetic, lossless, 12-bit, CMYK/YCCK, RGB) yields ErrUnsupported so the
// caller can fall back to image/jpeg. A progressive file's coefficients are kept
// until its last scan, only those the scale uses (see progressive.go); Inspect
// tells what a decode will allocate before it starts.
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
// (arithmetic, lossless, 12-bit, 4-component, RGB); fall back to image/jpeg.
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

// setup chooses the scale and allocates the output planes (and a progressive file's
// coefficients), after bounding the work by the amount of compressed data present.
func (d *decoder) setup(minSide int) error {
	blocks := d.layout(minSide)
	// Every block costs at least two bits in a sequential file (a DC and an EOB code)
	// and one in a progressive file's first DC scan, so a file claiming more blocks than
	// that is truncated: refuse before allocating.
	perByte := 4
	if d.progressive {
		perByte = 8
	}
	if blocks/perByte > len(d.data) {
		return io.ErrUnexpectedEOF
	}
	bs := 8 / d.scale
	for i := range d.comps {
		c := &d.comps[i]
		c.plane = make([]byte, c.stride*d.mcusY*c.v*bs)
	}
	if d.progressive {
		d.setupProgressive()
	}
	return nil
}

// layout computes the scale, the MCU grid and each component's block extent and plane
// stride; it returns the number of blocks the components' own extents hold.
func (d *decoder) layout(minSide int) int {
	d.scale = Scale(d.width, d.height, minSide)
	d.mcusX = ceilDiv(d.width, 8*d.hmax)
	d.mcusY = ceilDiv(d.height, 8*d.vmax)
	blocks := 0
	bs := 8 / d.scale
	for i := range d.comps {
		c := &d.comps[i]
		c.bw = ceilDiv(ceilDiv(d.width*c.h, d.hmax), 8)
		c.bh = ceilDiv(ceilDiv(d.height*c.v, d.vmax), 8)
		c.stride = d.mcusX * c.h * bs
		blocks += c.bw * c.bh
	}
	return blocks
}

// memoryBytes is what setup allocates: the planes and, for a progressive file, the kept
// coefficients (2 bytes each, (8/scale)^2 a block) and a block's 8-byte nonzero map.
func (d *decoder) memoryBytes() int64 {
	bs := int64(8 / d.scale)
	var n int64
	for i := range d.comps {
		c := &d.comps[i]
		blocks := int64(d.mcusX*c.h) * int64(d.mcusY*c.v)
		n += blocks * bs * bs
		if d.progressive {
			n += blocks * (2*bs*bs + 8)
		}
	}
	return n
}

// Info is what a JPEG's header announces and what Decode at a given minSide costs.
type Info struct {
	Width, Height int
	Progressive   bool
	// Scale is the denominator Decode will use (1, 2, 4 or 8).
	Scale int
	// Bytes is the memory Decode allocates: the output planes (padded to whole MCUs)
	// and, for a progressive file, the coefficients it keeps until the last scan.
	Bytes int64
}

// Inspect reads the header of a JPEG that Decode can handle and tells what decoding it
// for minSide will allocate, so that a caller can reserve that memory first. It returns
// ErrUnsupported for the variants Decode refuses and ErrTooLarge beyond MaxPixels.
func Inspect(data []byte, minSide int) (Info, error) {
	var d decoder
	if err := d.parse(data, false, 0); err != nil {
		return Info{}, err
	}
	d.layout(minSide)
	return Info{Width: d.width, Height: d.height, Progressive: d.progressive, Scale: d.scale, Bytes: d.memoryBytes()}, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
