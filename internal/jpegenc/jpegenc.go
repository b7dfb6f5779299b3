// Package jpegenc is a fast baseline JPEG encoder for the service's
// thumbnails. Output matches image/jpeg's choices (IJG-scaled Annex K
// quantisation tables, Annex K Huffman tables, 4:2:0 chroma, JFIF APP0), so
// sizes and quality are comparable, at a fraction of the CPU: colour
// conversion works on Pix a 16x16 MCU at a time in fixed point, the DCT is
// AAN with quantisation folded into its output scaling, and the entropy
// coder writes 32-bit words from a 64-bit accumulator.
package jpegenc

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"sync"
)

// ErrInvalid reports arguments Encode refuses: a nil or empty image, an
// image too large for baseline JPEG, or a quality outside 1..100.
var ErrInvalid = errors.New("jpegenc: invalid argument")

// maxSide is the largest width or height a SOF0 header can state.
const maxSide = 65535

// flushAt is how much output is buffered before it is handed to the writer;
// it bounds the pooled buffer while keeping writes few.
const flushAt = 64 << 10

// encoder holds everything one Encode needs; it is pooled so a steady stream
// of thumbnails allocates nothing per image beyond the caller's writer.
type encoder struct {
	w     io.Writer
	out   []byte
	acc   uint64
	nbits uint
	err   error

	quant  [2][64]uint8   // DQT tables, zigzag order
	scales [3][64]float32 // per-component quantScales
	comps  [3]component

	y      [4][64]float32 // the MCU's luma blocks, raster order
	cb, cr [64]float32    // the MCU's subsampled chroma blocks
	zz     [64]int32      // quantised coefficients, zigzag order
	edge   [2][64]byte    // right-edge rows padded by replication
}

var pool = sync.Pool{New: func() any { return &encoder{out: make([]byte, 0, flushAt+4096)} }}

// Encode writes img to w as a baseline JPEG at quality 1..100 (IJG scaling,
// as image/jpeg). *image.RGBA, *image.YCbCr (4:2:0) and *image.Gray are
// encoded directly; other images are converted to RGBA once. Alpha is
// ignored, as image/jpeg ignores it.
func Encode(w io.Writer, img image.Image, quality int) error {
	if isNil(img) {
		return fmt.Errorf("%w: nil image", ErrInvalid)
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("%w: quality %d not in 1..100", ErrInvalid, quality)
	}
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return fmt.Errorf("%w: empty image %v", ErrInvalid, b)
	}
	if b.Dx() > maxSide || b.Dy() > maxSide {
		return fmt.Errorf("%w: %dx%d exceeds %d pixels per side", ErrInvalid, b.Dx(), b.Dy(), maxSide)
	}
	e := pool.Get().(*encoder)
	defer func() {
		e.w, e.err = nil, nil
		e.out = e.out[:0]
		pool.Put(e)
	}()
	e.w, e.acc, e.nbits, e.out = w, 0, 0, e.out[:0]
	e.quant[0] = scaledQuant(0, quality)
	e.quant[1] = scaledQuant(1, quality)

	switch m := img.(type) {
	case *image.RGBA:
		e.encodeRGBA(m)
	case *image.Gray:
		e.encodeGray(m)
	case *image.YCbCr:
		if m.SubsampleRatio != image.YCbCrSubsampleRatio420 {
			e.encodeRGBA(toRGBA(img))
			break
		}
		e.encodeYCbCr420(m)
	default:
		e.encodeRGBA(toRGBA(img))
	}
	e.flush()
	return e.err
}

// isNil reports a nil interface or a nil pointer of the types Encode reads
// directly, whose Bounds would panic.
func isNil(img image.Image) bool {
	switch m := img.(type) {
	case nil:
		return true
	case *image.RGBA:
		return m == nil
	case *image.YCbCr:
		return m == nil
	case *image.Gray:
		return m == nil
	}
	return false
}

// toRGBA converts once so the fast path can serve any image type; draw
// premultiplies, which matches image/jpeg's use of At().RGBA().
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	return m
}

// setup writes the headers and readies components: ncomp is 1 (grayscale)
// or 3 (YCbCr 4:2:0); inY and inC are the fixed-point scales of the luma and
// chroma samples the loaders produce.
func (e *encoder) setup(w, h, ncomp int, inY, inC float64) {
	e.scales[0] = quantScales(&e.quant[0], inY)
	e.scales[1] = quantScales(&e.quant[1], inC)
	e.comps[0] = component{scale: &e.scales[0], dc: stdTables[dcLuma], ac: stdTables[acLuma]}
	e.comps[1] = component{scale: &e.scales[1], dc: stdTables[dcChroma], ac: stdTables[acChroma]}
	e.comps[2] = e.comps[1]
	e.writeHeaders(w, h, ncomp)
}

// maybeFlush hands buffered output to the writer once it is large; called
// between MCU rows so the per-block path never checks.
func (e *encoder) maybeFlush() {
	if len(e.out) >= flushAt {
		e.flush()
	}
}

// flush writes all buffered bytes, remembering the first write error.
func (e *encoder) flush() {
	if e.err == nil && len(e.out) > 0 {
		_, e.err = e.w.Write(e.out)
	}
	e.out = e.out[:0]
}

// finish ends the entropy-coded segment and the image.
func (e *encoder) finish() {
	e.out = finishBits(e.acc, e.nbits, e.out)
	e.out = append(e.out, 0xff, 0xd9) // EOI
}
