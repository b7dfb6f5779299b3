package jpegenc

import "image"

// RGB -> YCbCr (JFIF) in 16.16 fixed point. Each chroma row sums to zero
// (and luma to 65536) so grey stays exactly neutral. The results are fed to
// the DCT unrounded: their scale (65536, or 4*65536 for a 2x2 chroma sum) is
// folded into the quantiser multipliers instead of being shifted out.
const (
	yR, yG, yB    = 19595, 38470, 7471
	cbR, cbG, cbB = -11059, -21709, 32768
	crR, crG, crB = 32768, -27439, -5329
	yShift        = 128 << 16 // level shift (T.81 A.3.1) at luma scale
)

// encodeRGBA codes an RGBA image as YCbCr 4:2:0, one 16x16 MCU at a time.
func (e *encoder) encodeRGBA(m *image.RGBA) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	e.setup(w, h, 3, 65536, 4*65536)
	for y0 := 0; y0 < h; y0 += 16 {
		for x0 := 0; x0 < w; x0 += 16 {
			e.loadRGBA(m, x0, y0, w, h)
			for i := range e.y {
				e.encodeBlock(&e.y[i], &e.comps[0])
			}
			e.encodeBlock(&e.cb, &e.comps[1])
			e.encodeBlock(&e.cr, &e.comps[2])
		}
		e.maybeFlush()
	}
	e.finish()
}

// rgbaRow returns the 16 pixels of row y (clamped) starting at column x0,
// replicating the last column into scratch buffer s past the right edge.
func (e *encoder) rgbaRow(m *image.RGBA, x0, y, w, h, s int) *[64]byte {
	y = min(y, h-1)
	off := m.PixOffset(m.Rect.Min.X+x0, m.Rect.Min.Y+y)
	if x0+16 <= w {
		return (*[64]byte)(m.Pix[off : off+64])
	}
	n := (w - x0) * 4
	buf := &e.edge[s]
	copy(buf[:], m.Pix[off:off+n])
	for i := n; i < 64; i += 4 {
		copy(buf[i:i+4], buf[n-4:n])
	}
	return buf
}

// loadRGBA converts the MCU at (x0, y0) into e.y, e.cb and e.cr. Rows are
// taken in pairs so each 2x2 quad's RGB sums give its chroma sample: the
// box average of the four pixels' chroma, since the transform is linear.
func (e *encoder) loadRGBA(m *image.RGBA, x0, y0, w, h int) {
	for r := 0; r < 16; r += 2 {
		p0 := e.rgbaRow(m, x0, y0+r, w, h, 0)
		p1 := e.rgbaRow(m, x0, y0+r+1, w, h, 1)
		crow := (r >> 1) * 8
		for half := 0; half < 2; half++ {
			yb := &e.y[(r>>3)*2+half]
			o := (r & 7) * 8
			for c := 0; c < 8; c += 2 {
				i := (half*8 + c) * 4
				q0 := (*[8]byte)(p0[i : i+8])
				q1 := (*[8]byte)(p1[i : i+8])
				r0, g0, b0 := int32(q0[0]), int32(q0[1]), int32(q0[2])
				r1, g1, b1 := int32(q0[4]), int32(q0[5]), int32(q0[6])
				r2, g2, b2 := int32(q1[0]), int32(q1[1]), int32(q1[2])
				r3, g3, b3 := int32(q1[4]), int32(q1[5]), int32(q1[6])
				yb[o+c] = float32(yR*r0 + yG*g0 + yB*b0 - yShift)
				yb[o+c+1] = float32(yR*r1 + yG*g1 + yB*b1 - yShift)
				yb[o+8+c] = float32(yR*r2 + yG*g2 + yB*b2 - yShift)
				yb[o+8+c+1] = float32(yR*r3 + yG*g3 + yB*b3 - yShift)
				rs, gs, bs := r0+r1+r2+r3, g0+g1+g2+g3, b0+b1+b2+b3
				ci := crow + half*4 + c>>1
				e.cb[ci] = float32(cbR*rs + cbG*gs + cbB*bs)
				e.cr[ci] = float32(crR*rs + crG*gs + crB*bs)
			}
		}
	}
}
