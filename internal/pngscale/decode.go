// Package pngscale decodes a PNG straight to a reduced size: rows are inflated and
// unfiltered one at a time (two held: the row and the one above it), converted to 16-bit
// premultiplied RGBA and summed into the output pixels they fall in, so that a 7000x7000
// 16-bit PNG needs a few hundred kilobytes beside its 8-bit result instead of the 392 MB
// image/png would hold. Every colour type and bit depth is read, with palettes and tRNS
// transparency; interlaced (Adam7) files are summed into a whole-output accumulator since
// their passes revisit every row.
//
// The reduction is a box filter: source pixel (x, y) belongs to output pixel
// (x*w/W, y*h/H), and each output pixel is the mean of its own pixels, computed on
// premultiplied colour so transparent pixels do not bleed. At the source size the result
// is image/png's decode converted to *image.RGBA.
package pngscale

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io"
)

// ErrFormat reports data that is not a well-formed PNG.
var ErrFormat = errors.New("pngscale: invalid PNG")

// MaxPixels bounds the source image (width*height), checked from the header.
const MaxPixels = 200_000_000

// Header is what a PNG's IHDR announces.
type Header struct {
	Width, Height int
	Depth         int // bits per sample: 1, 2, 4, 8 or 16
	ColorType     int // 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA
	Interlaced    bool
}

// channels is the number of samples per pixel.
func (h Header) channels() int {
	switch h.ColorType {
	case 2:
		return 3
	case 4:
		return 2
	case 6:
		return 4
	}
	return 1
}

// rowBytes is the size of one unfiltered row of width w.
func (h Header) rowBytes(w int) int { return (w*h.channels()*h.Depth + 7) / 8 }

// Bytes is what Decode to w x h allocates: the result, two rows of the widest pass, the
// accumulator (one output row, or the whole output for an interlaced file) and inflate's
// window and buffers.
func (h Header) Bytes(w, hh int) int64 {
	out := int64(w) * int64(hh) * 4
	rows := 2 * int64(h.rowBytes(h.Width)+1)
	acc := int64(w) * 16
	if h.Interlaced {
		acc *= int64(hh)
	}
	conv := int64(h.Width) * 8            // a row as 16-bit RGBA
	maps := int64(h.Width)*4 + int64(w)*4 // column map and bucket sizes
	return out + rows + acc + conv + maps + 128<<10
}

// DecodeConfig reads and checks the header.
func DecodeConfig(data []byte) (Header, error) {
	var d decoder
	if err := d.chunks(data, false); err != nil {
		return Header{}, err
	}
	return d.hdr, nil
}

// decoder holds the chunks of one file.
type decoder struct {
	hdr     Header
	palette [][4]uint16 // premultiplied 16-bit RGBA
	trns    []byte
	idat    [][]byte
}

// chunks walks the file's chunks, checking every CRC; with all=false it stops after IHDR.
func (d *decoder) chunks(data []byte, all bool) error {
	if len(data) < 8 || string(data[:8]) != "\x89PNG\r\n\x1a\n" {
		return fmt.Errorf("%w: missing signature", ErrFormat)
	}
	pos, seen := 8, false
	for {
		if pos+12 > len(data) {
			return io.ErrUnexpectedEOF
		}
		n := int(binary.BigEndian.Uint32(data[pos:]))
		if n > len(data)-pos-12 {
			return io.ErrUnexpectedEOF
		}
		kind := string(data[pos+4 : pos+8])
		body := data[pos+8 : pos+8+n]
		if crc32.ChecksumIEEE(data[pos+4:pos+8+n]) != binary.BigEndian.Uint32(data[pos+8+n:]) {
			return fmt.Errorf("%w: bad CRC in %q", ErrFormat, kind)
		}
		pos += 12 + n
		if !seen && kind != "IHDR" {
			return fmt.Errorf("%w: IHDR is not first", ErrFormat)
		}
		switch kind {
		case "IHDR":
			if seen {
				return fmt.Errorf("%w: two IHDR chunks", ErrFormat)
			}
			seen = true
			if err := d.parseIHDR(body); err != nil {
				return err
			}
			if !all {
				return nil
			}
		case "PLTE":
			if len(body)%3 != 0 || len(body) == 0 || len(body) > 256*3 || len(d.idat) > 0 {
				return fmt.Errorf("%w: bad PLTE", ErrFormat)
			}
			d.palette = make([][4]uint16, len(body)/3)
			for i := range d.palette {
				p := body[3*i:]
				d.palette[i] = [4]uint16{uint16(p[0]) * 257, uint16(p[1]) * 257, uint16(p[2]) * 257, 0xFFFF}
			}
		case "tRNS":
			d.trns = body
		case "IDAT":
			d.idat = append(d.idat, body)
		case "IEND":
			return d.finishChunks()
		}
	}
}

// finishChunks checks what the pixels need once every chunk is read.
func (d *decoder) finishChunks() error {
	if len(d.idat) == 0 {
		return fmt.Errorf("%w: no IDAT", ErrFormat)
	}
	switch d.hdr.ColorType {
	case 3:
		if d.palette == nil {
			return fmt.Errorf("%w: palette image without PLTE", ErrFormat)
		}
		if len(d.trns) > len(d.palette) {
			d.trns = d.trns[:len(d.palette)] // alphas for missing entries mean nothing
		}
		for i, a := range d.trns {
			p := &d.palette[i]
			a16 := uint32(a) * 257
			for c := range 3 {
				p[c] = uint16(uint32(p[c]) * a16 / 0xFFFF)
			}
			p[3] = uint16(a16)
		}
	case 0:
		if d.trns != nil && len(d.trns) != 2 {
			d.trns = nil // image/png ignores a malformed key too
		}
	case 2:
		if d.trns != nil && len(d.trns) != 6 {
			d.trns = nil
		}
	default:
		d.trns = nil
	}
	return nil
}

func (d *decoder) parseIHDR(b []byte) error {
	if len(b) != 13 {
		return fmt.Errorf("%w: bad IHDR", ErrFormat)
	}
	w, h := binary.BigEndian.Uint32(b[0:]), binary.BigEndian.Uint32(b[4:])
	depth, ct := int(b[8]), int(b[9])
	if w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		return fmt.Errorf("%w: bad dimensions", ErrFormat)
	}
	if uint64(w)*uint64(h) > MaxPixels {
		return fmt.Errorf("%w: %dx%d is more than %d pixels", ErrFormat, w, h, MaxPixels)
	}
	ok := false
	switch ct {
	case 0:
		ok = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case 3:
		ok = depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 2, 4, 6:
		ok = depth == 8 || depth == 16
	}
	if !ok || b[10] != 0 || b[11] != 0 || b[12] > 1 {
		return fmt.Errorf("%w: unsupported colour type %d at depth %d", ErrFormat, ct, depth)
	}
	d.hdr = Header{Width: int(w), Height: int(h), Depth: depth, ColorType: ct, Interlaced: b[12] == 1}
	return nil
}

// adam7 are the interlace passes: origin and step in x and y.
var adam7 = [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}

// MaxBucket is the most source pixels one output pixel may average (their 16-bit sums
// must fit 32 bits): a reduction of up to 256 times on each side.
const MaxBucket = 1 << 16

// Decode decodes data reduced to w x h (each at most the source's and at least 1, and
// each output pixel at most MaxBucket source pixels; the source size itself gives the
// plain decode) as premultiplied 8-bit RGBA.
func Decode(data []byte, w, h int) (*image.RGBA, error) {
	var d decoder
	if err := d.chunks(data, true); err != nil {
		return nil, err
	}
	H := d.hdr
	if w < 1 || h < 1 || w > H.Width || h > H.Height || (H.Width+w-1)/w*((H.Height+h-1)/h) > MaxBucket {
		return nil, fmt.Errorf("pngscale: cannot reduce %dx%d to %dx%d", H.Width, H.Height, w, h)
	}
	readers := make([]io.Reader, len(d.idat))
	for i, b := range d.idat {
		readers[i] = bytes.NewReader(b)
	}
	zr, err := zlib.NewReader(io.MultiReader(readers...))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	s := newSink(H.Width, H.Height, w, h, H.Interlaced)
	passes := [][4]int{{0, 0, 1, 1}}
	if H.Interlaced {
		passes = adam7[:]
	}
	stride := H.rowBytes(H.Width)
	cur, prev := make([]byte, stride+1), make([]byte, stride+1)
	px := make([]uint16, 4*H.Width)
	bpp := max(1, H.channels()*H.Depth/8)
	for _, p := range passes {
		pw, ph := span(H.Width, p[0], p[2]), span(H.Height, p[1], p[3])
		if pw == 0 || ph == 0 {
			continue
		}
		n := H.rowBytes(pw) + 1
		clear(prev[:n])
		for y := 0; y < ph; y++ {
			if _, err := io.ReadFull(zr, cur[:n]); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
			if err := unfilter(cur[0], cur[1:n], prev[1:n], bpp); err != nil {
				return nil, err
			}
			d.convert(cur[1:n], pw, px)
			s.addRow(p[1]+y*p[3], p[0], p[2], px[:4*pw])
			cur, prev = prev, cur
		}
	}
	return s.finish(), nil
}

// span is the number of positions x0, x0+dx, ... below n.
func span(n, x0, dx int) int {
	if n <= x0 {
		return 0
	}
	return (n - x0 + dx - 1) / dx
}

// unfilter reverses a row's filter in place (PNG spec section 9) against the row above.
func unfilter(f byte, cur, prev []byte, bpp int) error {
	switch f {
	case 0:
	case 1: // Sub
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2: // Up
		for i, p := range prev {
			cur[i] += p
		}
	case 3: // Average
		for i := range bpp {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += byte((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4: // Paeth
		for i := range bpp {
			cur[i] += prev[i]
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += paeth(cur[i-bpp], prev[i], prev[i-bpp])
		}
	default:
		return fmt.Errorf("%w: bad filter type %d", ErrFormat, f)
	}
	return nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := p-int(a), p-int(b), p-int(c)
	pa, pb, pc = max(pa, -pa), max(pb, -pb), max(pc, -pc)
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

// convert turns an unfiltered row of w pixels into premultiplied 16-bit RGBA.
func (d *decoder) convert(row []byte, w int, out []uint16) {
	H := d.hdr
	switch {
	case H.ColorType == 3 || (H.ColorType == 0 && H.Depth < 16):
		d.convertLow(row, w, out)
	case H.ColorType == 0: // 16-bit gray
		key := -1
		if d.trns != nil {
			key = int(binary.BigEndian.Uint16(d.trns))
		}
		for x := range w {
			v := binary.BigEndian.Uint16(row[2*x:])
			a := uint16(0xFFFF)
			if int(v) == key {
				v, a = 0, 0
			}
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = v, v, v, a
		}
	case H.ColorType == 2 && d.trns == nil && H.Depth == 16:
		for x := range w {
			r := row[6*x : 6*x+6 : 6*x+6]
			o := out[4*x : 4*x+4 : 4*x+4]
			o[0], o[1], o[2], o[3] = uint16(r[0])<<8|uint16(r[1]), uint16(r[2])<<8|uint16(r[3]), uint16(r[4])<<8|uint16(r[5]), 0xFFFF
		}
	case H.ColorType == 2 && d.trns == nil:
		for x := range w {
			r := row[3*x : 3*x+3 : 3*x+3]
			o := out[4*x : 4*x+4 : 4*x+4]
			o[0], o[1], o[2], o[3] = uint16(r[0])*257, uint16(r[1])*257, uint16(r[2])*257, 0xFFFF
		}
	case H.ColorType == 2:
		var key [3]int
		hasKey := d.trns != nil
		if hasKey {
			for c := range 3 {
				key[c] = int(binary.BigEndian.Uint16(d.trns[2*c:]))
			}
		}
		for x := range w {
			var v [3]int
			if H.Depth == 16 {
				for c := range 3 {
					v[c] = int(binary.BigEndian.Uint16(row[6*x+2*c:]))
				}
			} else {
				for c := range 3 {
					v[c] = int(row[3*x+c])
				}
			}
			o := out[4*x : 4*x+4]
			if hasKey && v == key {
				o[0], o[1], o[2], o[3] = 0, 0, 0, 0
				continue
			}
			m := 1
			if H.Depth == 8 {
				m = 257
			}
			o[0], o[1], o[2], o[3] = uint16(v[0]*m), uint16(v[1]*m), uint16(v[2]*m), 0xFFFF
		}
	default: // 4 gray+alpha, 6 RGBA
		nc := H.channels()
		for x := range w {
			var s [4]uint32
			for c := range nc {
				if H.Depth == 16 {
					s[c] = uint32(binary.BigEndian.Uint16(row[2*(nc*x+c):]))
				} else {
					s[c] = uint32(row[nc*x+c]) * 257
				}
			}
			if nc == 2 {
				s = [4]uint32{s[0], s[0], s[0], s[1]}
			}
			a := s[3]
			o := out[4*x : 4*x+4]
			o[0], o[1], o[2], o[3] = uint16(s[0]*a/0xFFFF), uint16(s[1]*a/0xFFFF), uint16(s[2]*a/0xFFFF), uint16(a)
		}
	}
}

// convertLow handles palette images and gray below 16 bits, whose samples pack several
// to a byte; gray is scaled to 8 bits as image/png does (v * 255 / (2^depth - 1)).
func (d *decoder) convertLow(row []byte, w int, out []uint16) {
	depth := d.hdr.Depth
	mask := 1<<depth - 1
	key := -1
	if d.hdr.ColorType == 0 && d.trns != nil {
		key = int(binary.BigEndian.Uint16(d.trns)) & mask
	}
	for x := range w {
		bit := x * depth
		v := int(row[bit/8]>>(8-depth-bit%8)) & mask
		o := out[4*x : 4*x+4]
		if d.hdr.ColorType == 3 {
			if v >= len(d.palette) {
				// An index past the palette is an error by the spec; image/png
				// and libpng show opaque black, and so does this.
				o[0], o[1], o[2], o[3] = 0, 0, 0, 0xFFFF
				continue
			}
			p := d.palette[v]
			o[0], o[1], o[2], o[3] = p[0], p[1], p[2], p[3]
			continue
		}
		if v == key {
			o[0], o[1], o[2], o[3] = 0, 0, 0, 0
			continue
		}
		g := uint16(v * 255 / mask * 257)
		o[0], o[1], o[2], o[3] = g, g, g, 0xFFFF
	}
}
