package jpegscale

import (
	"fmt"
	"io"
)

// zigzag maps a coefficient's position in the entropy-coded sequence to its
// natural (row-major) index in the 8x8 block (T.81 figure A.6).
var zigzag = [64]uint8{
	0, 1, 8, 16, 9, 2, 3, 10,
	17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34,
	27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36,
	29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46,
	53, 60, 61, 54, 47, 55, 62, 63,
}

// decodeScan parses a scan header (T.81 B.2.3) and decodes its entropy-coded
// data straight into the output planes.
func (d *decoder) decodeScan(p []byte) error {
	if len(p) < 1 {
		return fmt.Errorf("%w: short SOS", ErrFormat)
	}
	if d.progressive {
		return d.progressiveScan(p)
	}
	ns := int(p[0])
	if ns < 1 || ns > len(d.comps) || len(p) != 4+2*ns {
		return fmt.Errorf("%w: bad SOS", ErrFormat)
	}
	var scomps [3]*component
	for i := 0; i < ns; i++ {
		id, tables := p[1+2*i], p[2+2*i]
		var c *component
		for j := range d.comps {
			if d.comps[j].id == id {
				c = &d.comps[j]
			}
		}
		if c == nil || c.done {
			return fmt.Errorf("%w: bad scan component", ErrFormat)
		}
		td, ta := tables>>4, tables&15
		if td > 3 || ta > 3 || !d.hset[0][td] || !d.hset[1][ta] || !d.qset[c.tq] {
			return fmt.Errorf("%w: missing table", ErrFormat)
		}
		c.dc, c.ac, c.q, c.pred, c.done = &d.huff[0][td], &d.huff[1][ta], &d.quant[c.tq], 0, true
		scomps[i] = c
	}
	if ss, se, a := p[1+2*ns], p[2+2*ns], p[3+2*ns]; ss != 0 || se != 63 || a != 0 {
		return fmt.Errorf("%w: spectral selection in sequential scan", ErrFormat)
	}
	d.br = bitReader{data: d.data, pos: d.pos}
	var err error
	if ns == 1 {
		err = d.scanSingle(scomps[0])
	} else {
		err = d.scanInterleaved(scomps[:ns])
	}
	// Bits invented past the end of the file were needed by the scan: the
	// file is truncated. (Past a marker we stay lenient, as libjpeg is.)
	if err == nil && d.br.n < 8*d.br.pad && d.br.pos >= len(d.data) {
		err = io.ErrUnexpectedEOF
	}
	d.pos = d.br.pos
	return err
}

// restartDue counts MCUs down to the next restart interval and, when it is
// reached, realigns the reader on the RSTn marker and resets the predictors.
func (d *decoder) restartDue(left *int, comps []*component) {
	if d.restart == 0 {
		return
	}
	if *left == 0 {
		d.br.restart()
		for _, c := range comps {
			c.pred = 0
		}
		d.eobrun = 0
		*left = d.restart
	}
	*left--
}

// scanSingle decodes a non-interleaved scan: one block per MCU, covering only
// the component's own extent.
func (d *decoder) scanSingle(c *component) error {
	bs := 8 / d.scale
	comps := []*component{c}
	left := d.restart
	for by := 0; by < c.bh; by++ {
		row := by * bs * c.stride
		for bx := 0; bx < c.bw; bx++ {
			d.restartDue(&left, comps)
			d.block(c, row+bx*bs)
			if d.br.err != nil {
				return d.br.err
			}
		}
	}
	return nil
}

// scanInterleaved decodes MCUs made of h x v blocks of every scan component.
func (d *decoder) scanInterleaved(comps []*component) error {
	bs := 8 / d.scale
	left := d.restart
	for my := 0; my < d.mcusY; my++ {
		for mx := 0; mx < d.mcusX; mx++ {
			d.restartDue(&left, comps)
			for _, c := range comps {
				for by := 0; by < c.v; by++ {
					row := (my*c.v + by) * bs * c.stride
					for bx := 0; bx < c.h; bx++ {
						d.block(c, row+(mx*c.h+bx)*bs)
					}
				}
			}
			if d.br.err != nil {
				return d.br.err
			}
		}
	}
	return nil
}

// block decodes one 8x8 block (T.81 F.2.2), dequantises it into d.blk in
// natural order and writes its (8/scale)^2 pixels at plane offset off.
// The bit buffer is kept in locals across the coefficient loop (and written
// back around the rare calls that need the reader) so it stays in registers.
func (d *decoder) block(c *component, off int) {
	br, blk, q := &d.br, &d.blk, c.q
	if br.n < 32 {
		br.fill()
	}
	s := br.decode(c.dc)
	if s != 0 {
		if s > 15 {
			br.err = errBadHuffman
			return
		}
		c.pred += br.receiveExtend(s)
	}
	blk[0] = c.pred * q[0]
	hasAC := false
	ac := c.ac
	acc, n := br.acc, br.n
	for k := 1; k < 64; k++ {
		if n < 32 {
			br.acc, br.n = acc, n
			br.fill()
			acc, n = br.acc, br.n
		}
		if e := ac.fastAC[acc>>(64-lutBits)]; e != 0 {
			k += int(e>>8) & 0xFF
			acc <<= uint(e & 0xFF)
			n -= int(e & 0xFF)
			if k > 63 {
				br.err = errBadHuffman
				break
			}
			blk[zigzag[k]] = e >> 16 * q[k]
			hasAC = true
			continue
		}
		var rs uint8
		if e := ac.lut[acc>>(64-lutBits)]; e != 0 {
			acc <<= e >> 8
			n -= int(e >> 8)
			rs = uint8(e)
		} else {
			br.acc, br.n = acc, n
			rs = br.decode(ac)
			acc, n = br.acc, br.n
		}
		r, s := int(rs>>4), rs&15
		if s == 0 {
			if r != 15 {
				break // EOB
			}
			k += 15 // ZRL: sixteen zeros
			continue
		}
		k += r
		if k > 63 {
			br.err = errBadHuffman
			break
		}
		v := int32(acc >> (64 - s))
		acc <<= s
		n -= int(s)
		if v < 1<<(s-1) {
			v += -1<<s + 1
		}
		blk[zigzag[k]] = v * q[k]
		hasAC = true
	}
	br.acc, br.n = acc, n
	if br.err != nil {
		return
	}
	dst := c.plane[off:]
	if !hasAC {
		fillDC(blk[0], dst, c.stride, 8/d.scale)
		blk[0] = 0
		return
	}
	switch d.scale {
	case 1:
		idct8(blk, dst, c.stride)
	case 2:
		idct4(blk, dst, c.stride)
	case 4:
		idct2(blk, dst, c.stride)
	default:
		fillDC(blk[0], dst, c.stride, 1)
	}
	*blk = [64]int32{}
}
