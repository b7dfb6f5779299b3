package jpegscale

import (
	"fmt"
	"io"
)

// Progressive JPEGs (T.81 Annex G) spread every block over several scans, so nothing
// can be written out until the last scan: the coefficients are kept for the whole image
// and inverse-transformed at the end. Only the ones the chosen scale uses are kept (the
// top-left 8/d x 8/d of each block: one at 1/8, four at 1/4, sixteen at 1/2), as int16,
// beside a 64-bit map of which AC coefficients are nonzero, which is all that the
// refinement scans' decoding depends on. A 7000x7000 4:2:0 file decoded at 1/4 holds
// 18 MB of coefficients instead of image/jpeg's 300 MB.

// MaxScans bounds a progressive file's scans. Each scan visits every block of its
// components, and one that codes nothing but end-of-band runs costs a few dozen bytes: a
// 7000x7000 file made of thousands of them would take tens of seconds of CPU. Encoders
// write 10 (libjpeg's default) to a few dozen (mozjpeg).
const MaxScans = 256

// ErrTooManyScans reports a progressive file with more than MaxScans scans. Callers
// should not fall back to image/jpeg, which has no such bound.
var ErrTooManyScans = fmt.Errorf("%w: more than %d scans", ErrFormat, MaxScans)

// initKeep maps each zigzag index to its slot among a block's kept coefficients.
func (d *decoder) initKeep() {
	n := 8 / d.scale
	d.nkeep = n * n
	for k, z := range zigzag {
		r, c := int(z)/8, int(z)%8
		d.keep[k] = -1
		if r < n && c < n {
			d.keep[k] = int8(r*n + c)
		}
	}
}

// setupProgressive allocates the coefficient grids (sizes from progressiveBytes).
func (d *decoder) setupProgressive() {
	d.initKeep()
	for i := range d.comps {
		c := &d.comps[i]
		c.bgw, c.bgh = d.mcusX*c.h, d.mcusY*c.v
		c.coef = make([]int16, c.bgw*c.bgh*d.nkeep)
		c.nz = make([]uint64, c.bgw*c.bgh)
	}
}

// progressiveScan parses a progressive scan header (T.81 B.2.3, G.1.1.1) and decodes
// its entropy-coded data into the coefficient grids.
func (d *decoder) progressiveScan(p []byte) error {
	ns := int(p[0])
	if ns < 1 || ns > len(d.comps) || len(p) != 4+2*ns {
		return fmt.Errorf("%w: bad SOS", ErrFormat)
	}
	if d.scans++; d.scans > MaxScans {
		return ErrTooManyScans
	}
	ss, se, ah, al := int(p[1+2*ns]), int(p[2+2*ns]), int(p[3+2*ns]>>4), int(p[3+2*ns]&15)
	dc := ss == 0
	switch {
	case dc && se != 0, !dc && (se < ss || se > 63 || ns != 1):
		return fmt.Errorf("%w: bad spectral selection", ErrFormat)
	case al > 13 || ah > 13:
		return fmt.Errorf("%w: bad successive approximation", ErrFormat)
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
		for _, prev := range scomps[:i] {
			if prev == c {
				c = nil
			}
		}
		if c == nil || (!dc && !c.dcSeen) {
			return fmt.Errorf("%w: bad scan component", ErrFormat)
		}
		td, ta := tables>>4, tables&15
		switch {
		case td > 3 || ta > 3:
			return fmt.Errorf("%w: bad table selector", ErrFormat)
		case dc && ah == 0 && !d.hset[0][td], !dc && !d.hset[1][ta]:
			return fmt.Errorf("%w: missing table", ErrFormat)
		}
		c.dc, c.ac, c.pred = &d.huff[0][td], &d.huff[1][ta], 0
		scomps[i] = c
	}
	d.br = bitReader{data: d.data, pos: d.pos}
	d.eobrun = 0
	var err error
	if ns == 1 {
		err = d.progressiveSingle(scomps[0], ss, se, ah, al)
	} else {
		err = d.progressiveInterleaved(scomps[:ns], ah, al)
	}
	if err == nil && d.br.n < 8*d.br.pad && d.br.pos >= len(d.data) {
		err = io.ErrUnexpectedEOF
	}
	d.pos = d.br.pos
	if err == nil && dc && ah == 0 {
		for _, c := range scomps[:ns] {
			c.dcSeen, c.done = true, true
		}
	}
	return err
}

// progressiveSingle decodes a non-interleaved scan: the blocks of the component's own
// extent, one per MCU.
func (d *decoder) progressiveSingle(c *component, ss, se, ah, al int) error {
	comps := []*component{c}
	left := d.restart
	for by := 0; by < c.bh; by++ {
		for bx := 0; bx < c.bw; bx++ {
			d.restartDue(&left, comps)
			d.progressiveBlock(c, by*c.bgw+bx, ss, se, ah, al)
			if d.br.err != nil {
				return d.br.err
			}
		}
	}
	return nil
}

// progressiveInterleaved decodes a DC scan of several components, MCU by MCU.
func (d *decoder) progressiveInterleaved(comps []*component, ah, al int) error {
	left := d.restart
	for my := 0; my < d.mcusY; my++ {
		for mx := 0; mx < d.mcusX; mx++ {
			d.restartDue(&left, comps)
			for _, c := range comps {
				for by := 0; by < c.v; by++ {
					row := (my*c.v + by) * c.bgw
					for bx := 0; bx < c.h; bx++ {
						d.progressiveBlock(c, row+mx*c.h+bx, 0, 0, ah, al)
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

// progressiveBlock decodes one block's part of a scan (T.81 G.1.2).
func (d *decoder) progressiveBlock(c *component, b, ss, se, ah, al int) {
	coef := c.coef[b*d.nkeep : (b+1)*d.nkeep]
	switch {
	case ss == 0 && ah == 0: // DC first
		s := d.br.decode(c.dc)
		if s > 15 {
			d.br.err = errBadHuffman
			return
		}
		if s != 0 {
			c.pred += d.receive(s)
		}
		coef[0] = int16(c.pred << al)
	case ss == 0: // DC refinement: one bit
		if d.bits(1) != 0 {
			coef[0] |= 1 << al
		}
	case ah == 0:
		d.acFirst(c, coef, b, ss, se, al)
	default:
		d.acRefine(c, coef, b, ss, se, al)
	}
}

// acFirst decodes the first pass over a band of AC coefficients (T.81 G.1.2.2).
func (d *decoder) acFirst(c *component, coef []int16, b, ss, se, al int) {
	if d.eobrun > 0 {
		d.eobrun--
		return
	}
	br := &d.br
	for k := ss; k <= se; k++ {
		rs := br.decode(c.ac)
		r, s := int(rs>>4), rs&15
		if s == 0 {
			if r < 15 {
				d.eobrun = 1<<r - 1
				if r > 0 {
					d.eobrun += int(d.bits(r))
				}
				return
			}
			k += 15 // ZRL: sixteen zeros
			continue
		}
		k += r
		if k > se || s > 15 {
			br.err = errBadHuffman
			return
		}
		v := d.receive(s) << al
		if i := d.keep[k]; i >= 0 {
			coef[i] = int16(v)
		}
		c.nz[b] |= 1 << k
	}
}

// acRefine decodes a refinement pass over a band of AC coefficients (T.81 G.1.2.3): a
// correction bit for every coefficient already nonzero, and new coefficients of +-1<<al
// placed by counting the zeros between them.
func (d *decoder) acRefine(c *component, coef []int16, b, ss, se, al int) {
	br := &d.br
	nz := c.nz[b]
	k := ss
	if d.eobrun == 0 {
		for ; k <= se; k++ {
			rs := br.decode(c.ac)
			r, s := int(rs>>4), rs&15
			v := int32(0)
			switch {
			case s == 1:
				v = -1 << al
				if d.bits(1) != 0 {
					v = 1 << al
				}
			case s != 0:
				br.err = errBadHuffman
				return
			case r != 15:
				d.eobrun = 1 << r
				if r > 0 {
					d.eobrun += int(d.bits(r))
				}
			}
			if d.eobrun > 0 {
				break
			}
			// Skip r zeros (refining the nonzero coefficients passed on the way), and
			// land on the zero that becomes v.
			for ; k <= se; k++ {
				if nz&(1<<k) != 0 {
					d.refine(coef, k, al)
				} else {
					if r == 0 {
						break
					}
					r--
				}
			}
			if br.err != nil {
				return
			}
			if v != 0 && k <= se {
				if i := d.keep[k]; i >= 0 {
					coef[i] = int16(v)
				}
				nz |= 1 << k
			}
		}
	}
	if d.eobrun > 0 {
		// The rest of the band is zeros still: only the nonzero ones get a bit.
		for ; k <= se; k++ {
			if nz&(1<<k) != 0 {
				d.refine(coef, k, al)
			}
		}
		d.eobrun--
	}
	c.nz[b] = nz
}

// refine reads the correction bit of a nonzero coefficient at zigzag index k and, if it
// is set, moves the coefficient's magnitude up by 1<<al.
func (d *decoder) refine(coef []int16, k, al int) {
	if d.bits(1) == 0 {
		return
	}
	i := d.keep[k]
	if i < 0 {
		return
	}
	p1 := int16(1) << al
	if v := coef[i]; v&p1 == 0 {
		if v >= 0 {
			coef[i] = v + p1
		} else {
			coef[i] = v - p1
		}
	}
}

// bits reads n (at most 16) raw bits.
func (d *decoder) bits(n int) uint32 {
	br := &d.br
	if br.n < n {
		br.fill()
	}
	v := uint32(br.acc >> (64 - n))
	br.acc <<= n
	br.n -= n
	return v
}

// receive reads an s-bit magnitude category value (0 < s < 16).
func (d *decoder) receive(s uint8) int32 {
	if d.br.n < int(s) {
		d.br.fill()
	}
	return d.br.receiveExtend(s)
}

// reconstruct dequantises and inverse-transforms every block of every component into
// its output plane, once all scans are in, then drops the coefficients.
func (d *decoder) reconstruct() error {
	// Quantisers are read at the end, as image/jpeg does (a file may define them late).
	for i := range d.comps {
		if !d.qset[d.comps[i].tq] {
			return fmt.Errorf("%w: missing quantisation table", ErrFormat)
		}
	}
	n := 8 / d.scale
	var slotZ [64]int // slot -> zigzag index
	for k, i := range d.keep {
		if i >= 0 {
			slotZ[i] = k
		}
	}
	for i := range d.comps {
		c := &d.comps[i]
		q := &d.quant[c.tq]
		for by := 0; by < c.bgh; by++ {
			for bx := 0; bx < c.bgw; bx++ {
				b := by*c.bgw + bx
				coef := c.coef[b*d.nkeep : (b+1)*d.nkeep]
				hasAC := false
				for s, v := range coef {
					if v != 0 {
						d.blk[s/n*8+s%n] = int32(v) * q[slotZ[s]]
						hasAC = hasAC || s != 0
					}
				}
				d.output(c, (by*n)*c.stride+bx*n, hasAC)
			}
		}
		c.coef, c.nz = nil, nil
	}
	return nil
}

// output writes the dequantised block in d.blk at plane offset off and clears it.
func (d *decoder) output(c *component, off int, hasAC bool) {
	blk := &d.blk
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
