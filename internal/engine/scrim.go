package engine

import (
	"image"
	"math"

	"thumbforge/internal/colour"
)

// scrim darkens the pixels of region whose relative luminance exceeds lmax down to lmax
// (scaling linear light, so hue is kept), fading out smoothly over feather pixels
// outside region with rounded corners, so no box edge shows. This is what guarantees
// the headline's WCAG contrast on any background: text of luminance L reaches ratio
// (L+0.05)/(lmax+0.05) against everything behind it.
func scrim(dst *image.RGBA, region image.Rectangle, lmax float64, feather int) {
	if lmax < 0 {
		lmax = 0
	}
	// Luminance in 16-bit fixed point from three tables: most pixels of dark themes are
	// already below lmax and cost three lookups.
	var lum [3][256]int32
	for i := range 256 {
		lum[0][i] = int32(0.2126 * colour.Linear(uint8(i)) * 65536)
		lum[1][i] = int32(0.7152 * colour.Linear(uint8(i)) * 65536)
		lum[2][i] = int32(0.0722 * colour.Linear(uint8(i)) * 65536)
	}
	limit := int32(lmax * 65536)
	var lin12 [256]int32 // linear light in 1/4096 steps, the index of linearToSRGBTable
	for i := range lin12 {
		lin12[i] = int32(colour.Linear(uint8(i))*4096 + 0.5)
	}
	f := float64(max(feather, 1))
	outer := region.Inset(-feather).Intersect(dst.Rect)
	dx2 := make([]float64, outer.Dx()) // squared distance outside region, per column
	for i := range dx2 {
		d := float64(max(region.Min.X-(outer.Min.X+i), outer.Min.X+i-region.Max.X+1, 0))
		dx2[i] = d * d
	}
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		dy := float64(max(region.Min.Y-y, y-region.Max.Y+1, 0))
		dy2 := dy * dy
		row := dst.Pix[dst.PixOffset(outer.Min.X, y) : dst.PixOffset(outer.Min.X, y)+4*outer.Dx()]
		for i, d2 := range dx2 {
			p := row[4*i : 4*i+3 : 4*i+3]
			if lum[0][p[0]]+lum[1][p[1]]+lum[2][p[2]] <= limit {
				continue
			}
			w := 1.0
			if d := d2 + dy2; d > 0 {
				t := math.Sqrt(d) / f
				if t >= 1 {
					continue
				}
				w = 1 - t*t*(3-2*t) // smoothstep: no visible edge where the fade starts or ends
			}
			l := lum[0][p[0]] + lum[1][p[1]] + lum[2][p[2]]
			// Scale linear light by k (16-bit fixed point) and map back through the
			// 4096-entry table: integer maths for the pixels that do change.
			k := int64((1 - w*(1-float64(limit)/float64(l))) * 65536)
			p[0] = colour.LinearToSRGB12(int64(lin12[p[0]])*k>>16)
			p[1] = colour.LinearToSRGB12(int64(lin12[p[1]])*k>>16)
			p[2] = colour.LinearToSRGB12(int64(lin12[p[2]])*k>>16)
		}
	}
}
