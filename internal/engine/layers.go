package engine

import (
	"image"
	"image/color"
)

// band is a translucent layer filling everything below a curve: top[x] is the curve's
// height at the centre of column x.
type band struct {
	top []float64
	c   color.RGBA
	a   float64
}

// fillBands paints bands (at most 8, in order) in one pass over the pixels below the
// highest curve. A pixel fully under a set of bands gets their combined blend, one
// multiply-add per channel precomputed per set; only the pixel a curve passes through
// (its coverage is the fraction of the pixel below the curve) blends band by band.
// Rasterizing each band on its own cost a coverage pass and a blend pass per band over
// most of the canvas.
func fillBands(dst *image.RGBA, bands []band) {
	n := len(bands)
	if n == 0 || n > 8 {
		return
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	ts := make([]int32, n)
	for i, b := range bands {
		ts[i] = alpha256(b.a)
	}
	// Combined blend per subset of bands, in 16-bit fixed point: out = p*k + c.
	type affine struct{ k, r, g, b int64 }
	sets := make([]affine, 1<<n)
	for s := range sets {
		f := affine{k: 1 << 16}
		for i, b := range bands {
			if s&(1<<i) == 0 {
				continue
			}
			keep, t := int64(256-ts[i]), int64(ts[i])
			f.k = f.k * keep >> 8
			f.r = f.r*keep>>8 + int64(b.c.R)*t<<8
			f.g = f.g*keep>>8 + int64(b.c.G)*t<<8
			f.b = f.b*keep>>8 + int64(b.c.B)*t<<8
		}
		sets[s] = f
	}
	// Per column and band: the first fully covered row, and the coverage of the row
	// above it (the curve passes through that one). Laid out column-major so one pixel's
	// values are adjacent.
	full := make([]int32, w*n)
	cov := make([]int32, w*n)
	minRow := h
	for i, b := range bands {
		for x, t := range b.top[:w] {
			f := int32(min(max(t, -1), float64(h)) + 0.999999)
			full[x*n+i] = f
			cov[x*n+i] = int32((float64(f)-t)*float64(ts[i]) + 0.5) // alpha of row f-1
			minRow = min(minRow, int(f)-1)
		}
	}
	for y := max(0, minRow); y < h; y++ {
		y32 := int32(y)
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x := range w {
			fs := full[x*n : x*n+n : x*n+n]
			set, edge := 0, false
			for i, f := range fs {
				if y32 >= f {
					set |= 1 << i
				} else if y32 == f-1 {
					edge = true
				}
			}
			p := row[4*x : 4*x+4 : 4*x+4]
			if !edge {
				if set != 0 {
					f := sets[set]
					p[0] = uint8((int64(p[0])*f.k + f.r + 1<<15) >> 16)
					p[1] = uint8((int64(p[1])*f.k + f.g + 1<<15) >> 16)
					p[2] = uint8((int64(p[2])*f.k + f.b + 1<<15) >> 16)
				}
				continue
			}
			for i, f := range fs {
				switch {
				case y32 >= f:
					blend256(p, bands[i].c, ts[i])
				case y32 == f-1:
					blend256(p, bands[i].c, cov[x*n+i])
				}
			}
		}
	}
}
