package builtin

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
	// Tiles of 16 columns: in a tile's row that no curve passes through, every pixel is
	// under the same set of bands and takes the set's blend without per-pixel tests.
	const tile = 16
	lo, hi := make([]int32, n), make([]int32, n)
	for tx := 0; tx < w; tx += tile {
		te := min(tx+tile, w)
		for i := range n {
			lo[i], hi[i] = int32(h), -1
			for x := tx; x < te; x++ {
				lo[i] = min(lo[i], full[x*n+i]-1)
				hi[i] = max(hi[i], full[x*n+i])
			}
		}
		for y := max(0, minRow); y < h; y++ {
			y32 := int32(y)
			set, uniform := 0, true
			for i := range n {
				if y32 >= hi[i] {
					set |= 1 << i
				} else if y32 >= lo[i] {
					uniform = false
				}
			}
			row := dst.Pix[y*dst.Stride+4*tx : y*dst.Stride+4*te]
			if uniform {
				if set != 0 {
					applyAffine(row, sets[set].k, sets[set].r, sets[set].g, sets[set].b)
				}
				continue
			}
			for x := tx; x < te; x++ {
				fs := full[x*n : x*n+n : x*n+n]
				set, edge := 0, false
				for i, f := range fs {
					if y32 >= f {
						set |= 1 << i
					} else if y32 == f-1 {
						edge = true
					}
				}
				p := row[4*(x-tx) : 4*(x-tx)+4 : 4*(x-tx)+4]
				if !edge {
					if set != 0 {
						applyAffine(p, sets[set].k, sets[set].r, sets[set].g, sets[set].b)
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
}

// applyAffine sets every RGBA pixel of pix to p*k + c per channel (16-bit fixed point).
func applyAffine(pix []uint8, k, r, g, b int64) {
	for i := 0; i+3 < len(pix); i += 4 {
		p := pix[i : i+3 : i+3]
		p[0] = uint8((int64(p[0])*k + r + 1<<15) >> 16)
		p[1] = uint8((int64(p[1])*k + g + 1<<15) >> 16)
		p[2] = uint8((int64(p[2])*k + b + 1<<15) >> 16)
	}
}
