package jpegenc

import "image"

// encodeGray codes a Gray image as a single-component JPEG.
func (e *encoder) encodeGray(m *image.Gray) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	e.setup(w, h, 1, 1, 1)
	b := &e.y[0]
	for y0 := 0; y0 < h; y0 += 8 {
		for x0 := 0; x0 < w; x0 += 8 {
			loadPlane(b, m.Pix, m.Stride, m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y), x0, y0, w, h)
			e.encodeBlock(b, &e.comps[0])
		}
		e.maybeFlush()
	}
	e.finish()
}

// encodeYCbCr420 codes a 4:2:0 YCbCr image straight from its planes.
func (e *encoder) encodeYCbCr420(m *image.YCbCr) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	cw, ch := (w+1)/2, (h+1)/2
	yOff := m.YOffset(m.Rect.Min.X, m.Rect.Min.Y)
	cOff := m.COffset(m.Rect.Min.X, m.Rect.Min.Y)
	if m.Rect.Min.X&1 != 0 || m.Rect.Min.Y&1 != 0 {
		// A sub-image starting mid-quad does not align with its chroma.
		e.encodeRGBA(toRGBA(m))
		return
	}
	e.setup(w, h, 3, 1, 1)
	for y0 := 0; y0 < h; y0 += 16 {
		for x0 := 0; x0 < w; x0 += 16 {
			for i := range e.y {
				loadPlane(&e.y[i], m.Y, m.YStride, yOff, x0+(i&1)*8, y0+(i>>1)*8, w, h)
				e.encodeBlock(&e.y[i], &e.comps[0])
			}
			loadPlane(&e.cb, m.Cb, m.CStride, cOff, x0/2, y0/2, cw, ch)
			e.encodeBlock(&e.cb, &e.comps[1])
			loadPlane(&e.cr, m.Cr, m.CStride, cOff, x0/2, y0/2, cw, ch)
			e.encodeBlock(&e.cr, &e.comps[2])
		}
		e.maybeFlush()
	}
	e.finish()
}

// loadPlane copies the level-shifted 8x8 block at (x0, y0) of a w x h plane
// whose (0, 0) sample is at pix[base], replicating edge samples.
func loadPlane(b *[64]float32, pix []byte, stride, base, x0, y0, w, h int) {
	for r := 0; r < 8; r++ {
		row := pix[base+min(y0+r, h-1)*stride:]
		if x0+8 <= w {
			s := (*[8]byte)(row[x0 : x0+8])
			for c, v := range s {
				b[r*8+c] = float32(int32(v) - 128)
			}
			continue
		}
		for c := 0; c < 8; c++ {
			b[r*8+c] = float32(int32(row[min(x0+c, w-1)]) - 128)
		}
	}
}
