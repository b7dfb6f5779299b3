package jpegscale

import (
	"fmt"
	"image"
	"io"
)

// Marker codes (ITU T.81 table B.1) that the parser acts on.
const (
	mSOF0 = 0xC0 // baseline DCT
	mSOF1 = 0xC1 // extended sequential DCT, Huffman
	mSOF2 = 0xC2 // progressive DCT, Huffman
	mDHT  = 0xC4
	mRST0 = 0xD0
	mRST7 = 0xD7
	mSOI  = 0xD8
	mEOI  = 0xD9
	mSOS  = 0xDA
	mDQT  = 0xDB
	mDNL  = 0xDC
	mDRI  = 0xDD
	mAPP0 = 0xE0
	mAPPE = 0xEE
	mTEM  = 0x01
)

// component is one colour plane of the frame and, once allocated, its output.
type component struct {
	id     uint8
	h, v   int // sampling factors
	tq     uint8
	bw, bh int // blocks covering the component's own extent (non-interleaved scans)
	plane  []byte
	stride int
	pred   int32
	dc, ac *huffTable
	q      *[64]int32 // quantiser in zigzag order, captured at scan start
	done   bool

	// Progressive files only: the grid of blocks every scan fills (bgw x bgh, the
	// interleaved MCUs' extent), holding per block the coefficients the chosen scale
	// uses (d.nkeep of them, natural order within the kept square) and a bitmap of the
	// AC coefficients that are nonzero so far, which refinement scans depend on.
	coef     []int16
	nz       []uint64
	bgw, bgh int
	dcSeen   bool // a first DC scan has covered the component
}

// decoder holds the parse state of one image; it is used once.
type decoder struct {
	data          []byte
	pos           int
	width, height int
	compBuf       [3]component
	comps         []component
	hmax, vmax    int
	mcusX, mcusY  int
	restart       int
	quant         [4][64]int32
	qset          [4]bool
	huff          [2][4]huffTable
	hset          [2][4]bool
	jfif, adobe   bool
	transform     uint8
	scale         int
	ratio         image.YCbCrSubsampleRatio
	br            bitReader
	blk           [64]int32

	progressive bool
	scans       int      // progressive scans seen
	eobrun      int      // progressive AC scans: blocks left in the current end-of-band run
	keep        [64]int8 // zigzag index -> slot in a block's kept coefficients, -1 if dropped
	nkeep       int
}

// segment returns the payload of a length-prefixed marker segment and advances past it.
func (d *decoder) segment() ([]byte, error) {
	if d.pos+2 > len(d.data) {
		return nil, io.ErrUnexpectedEOF
	}
	n := int(d.data[d.pos])<<8 | int(d.data[d.pos+1])
	if n < 2 {
		return nil, fmt.Errorf("%w: bad segment length", ErrFormat)
	}
	if d.pos+n > len(d.data) {
		return nil, io.ErrUnexpectedEOF
	}
	p := d.data[d.pos+2 : d.pos+n]
	d.pos += n
	return p, nil
}

// parse walks the marker segments. With decode=false it stops after the frame
// header; otherwise it decodes every scan at the scale chosen for minSide.
func (d *decoder) parse(data []byte, decode bool, minSide int) error {
	d.data = data
	if len(data) < 2 || data[0] != 0xFF || data[1] != mSOI {
		return fmt.Errorf("%w: missing SOI marker", ErrFormat)
	}
	d.pos = 2
	for {
		// Tolerate junk between segments (as libjpeg does): find the next 0xFF, skip fill bytes.
		for d.pos < len(data) && data[d.pos] != 0xFF {
			d.pos++
		}
		for d.pos < len(data) && data[d.pos] == 0xFF {
			d.pos++
		}
		if d.pos >= len(data) {
			if d.progressive && decode {
				// Without EOI there is no telling whether scans are missing.
				return io.ErrUnexpectedEOF
			}
			return d.finish(decode)
		}
		m := data[d.pos]
		d.pos++
		switch {
		case m == mEOI:
			return d.finish(decode)
		case m == mSOI || m == mTEM || (m >= mRST0 && m <= mRST7) || m == 0:
			// Parameterless markers (or a stray stuffed zero): nothing to skip.
		case m == mSOF0 || m == mSOF1 || m == mSOF2:
			if d.comps != nil {
				return fmt.Errorf("%w: multiple frames", ErrFormat)
			}
			p, err := d.segment()
			if err != nil {
				return err
			}
			d.progressive = m == mSOF2
			if err := d.parseSOF(p); err != nil {
				return err
			}
			if !decode {
				return d.checkColor()
			}
			if err := d.setup(minSide); err != nil {
				return err
			}
		case m >= 0xC3 && m <= 0xCF && m != mDHT:
			// SOF3/5-7/9-11/13-15 (lossless, hierarchical,
			// arithmetic), JPG and DAC (arithmetic conditioning).
			return ErrUnsupported
		default:
			p, err := d.segment()
			if err != nil {
				return err
			}
			if err := d.handle(m, p); err != nil {
				return err
			}
		}
	}
}

// handle processes a non-frame segment.
func (d *decoder) handle(m byte, p []byte) error {
	switch {
	case m == mDHT:
		return d.parseDHT(p)
	case m == mDQT:
		return d.parseDQT(p)
	case m == mDRI:
		if len(p) != 2 {
			return fmt.Errorf("%w: bad DRI", ErrFormat)
		}
		d.restart = int(p[0])<<8 | int(p[1])
	case m == mSOS:
		if d.comps == nil {
			return fmt.Errorf("%w: scan before frame", ErrFormat)
		}
		if err := d.checkColor(); err != nil {
			return err
		}
		return d.decodeScan(p)
	case m == mDNL:
		return ErrUnsupported
	case m == mAPP0:
		if len(p) >= 5 && string(p[:5]) == "JFIF\x00" {
			d.jfif = true
		}
	case m == mAPPE:
		if len(p) >= 12 && string(p[:5]) == "Adobe" {
			d.adobe, d.transform = true, p[11]
		}
	}
	// Other APPn, COM and unknown segments carry nothing needed for pixels.
	return nil
}

// finish succeeds once every component has been decoded (a missing EOI is tolerated).
func (d *decoder) finish(decode bool) error {
	if d.comps == nil {
		return fmt.Errorf("%w: no frame", ErrFormat)
	}
	if !decode {
		return nil
	}
	for i := range d.comps {
		if !d.comps[i].done {
			return io.ErrUnexpectedEOF
		}
	}
	if d.progressive {
		return d.reconstruct()
	}
	return nil
}

// parseSOF reads the frame header (T.81 B.2.2) and validates what we support.
func (d *decoder) parseSOF(p []byte) error {
	if len(p) < 6 {
		return fmt.Errorf("%w: short SOF", ErrFormat)
	}
	if p[0] != 8 {
		return ErrUnsupported // 12-bit (or invalid) precision
	}
	d.height = int(p[1])<<8 | int(p[2])
	d.width = int(p[3])<<8 | int(p[4])
	n := int(p[5])
	if n != 1 && n != 3 {
		return ErrUnsupported
	}
	if len(p) != 6+3*n {
		return fmt.Errorf("%w: bad SOF length", ErrFormat)
	}
	if d.height == 0 {
		return ErrUnsupported // height defined later by DNL
	}
	if d.width == 0 {
		return fmt.Errorf("%w: zero width", ErrFormat)
	}
	if d.width*d.height > MaxPixels {
		return ErrTooLarge
	}
	d.comps = d.compBuf[:n]
	d.hmax, d.vmax = 1, 1
	for i := range d.comps {
		c := &d.comps[i]
		b := p[6+3*i:]
		c.id, c.h, c.v, c.tq = b[0], int(b[1]>>4), int(b[1]&15), b[2]
		if c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3 {
			return fmt.Errorf("%w: bad component parameters", ErrFormat)
		}
		for j := 0; j < i; j++ {
			if d.comps[j].id == c.id {
				return fmt.Errorf("%w: duplicate component id", ErrFormat)
			}
		}
		d.hmax, d.vmax = max(d.hmax, c.h), max(d.vmax, c.v)
	}
	if n == 1 {
		// A lone component is always coded non-interleaved, one block per MCU.
		d.comps[0].h, d.comps[0].v, d.hmax, d.vmax = 1, 1, 1, 1
		return nil
	}
	return d.subsampling()
}

// subsampling maps the sampling factors onto an image.YCbCrSubsampleRatio.
func (d *decoder) subsampling() error {
	y, cb, cr := d.comps[0], d.comps[1], d.comps[2]
	if cb.h != cr.h || cb.v != cr.v || y.h != d.hmax || y.v != d.vmax ||
		y.h%cb.h != 0 || y.v%cb.v != 0 {
		return ErrUnsupported
	}
	switch [2]int{y.h / cb.h, y.v / cb.v} {
	case [2]int{1, 1}:
		d.ratio = image.YCbCrSubsampleRatio444
	case [2]int{2, 1}:
		d.ratio = image.YCbCrSubsampleRatio422
	case [2]int{2, 2}:
		d.ratio = image.YCbCrSubsampleRatio420
	case [2]int{1, 2}:
		d.ratio = image.YCbCrSubsampleRatio440
	case [2]int{4, 1}:
		d.ratio = image.YCbCrSubsampleRatio411
	case [2]int{4, 2}:
		d.ratio = image.YCbCrSubsampleRatio410
	default:
		return ErrUnsupported
	}
	return nil
}

// checkColor refuses 3-component files that are RGB rather than YCbCr
// (Adobe transform 0, or component ids 'R','G','B' without JFIF/Adobe markers).
func (d *decoder) checkColor() error {
	if len(d.comps) != 3 {
		return nil
	}
	if d.adobe && d.transform == 0 {
		return ErrUnsupported
	}
	if !d.jfif && !d.adobe && d.comps[0].id == 'R' && d.comps[1].id == 'G' && d.comps[2].id == 'B' {
		return ErrUnsupported
	}
	return nil
}
