package builtin

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
//
// It is all integer maths from tables: luminance in 16-bit fixed point from three
// lookups (most pixels of dark themes are already below lmax and cost only those), the
// fade weight by squared distance, and the scale factor lmax/L from a reciprocal table
// indexed by L/16, rounded so pixels only ever come out darker, never brighter.
func scrim(dst *image.RGBA, region image.Rectangle, lmax float64, feather int) {
	if lmax < 0 {
		lmax = 0
	}
	var lum [3][256]int32
	var lin12 [256]int32 // linear light in 1/4096 steps, the index of linearToSRGBTable
	for i := range 256 {
		l := colour.Linear(uint8(i))
		lum[0][i] = int32(0.2126 * l * 65536)
		lum[1][i] = int32(0.7152 * l * 65536)
		lum[2][i] = int32(0.0722 * l * 65536)
		lin12[i] = int32(l*4096 + 0.5)
	}
	limit := int32(lmax * 65536)
	// scale[i] = limit / L (16-bit fixed point) for the largest L with L>>4 == i.
	var scale [65536>>4 + 2]int64
	for i := range scale {
		scale[i] = int64(limit) << 16 / int64((i+1)<<4)
	}
	f := max(feather, 1)
	// fade[d2] = 1 - smoothstep(sqrt(d2)/f) in 16-bit fixed point, for squared
	// distances outside region below f*f: no visible edge where the fade starts or ends.
	fade := make([]int64, f*f)
	for d2 := range fade {
		t := math.Sqrt(float64(d2)) / float64(f)
		fade[d2] = int64((1 - t*t*(3-2*t)) * 65536)
	}
	outer := region.Inset(-feather).Intersect(dst.Rect)
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		dy := max(region.Min.Y-y, y-region.Max.Y+1, 0)
		if dy >= f {
			continue
		}
		// Columns whose distance to region stays under the feather in this row.
		half := int(math.Sqrt(float64(f*f-1-dy*dy))) + 1
		x0 := max(outer.Min.X, region.Min.X-half)
		x1 := min(outer.Max.X, region.Max.X+half)
		row := dst.Pix[dst.PixOffset(x0, y) : dst.PixOffset(x0, y)+4*(x1-x0)]
		dy2 := dy * dy
		for i := range x1 - x0 {
			p := row[4*i : 4*i+3 : 4*i+3]
			l := lum[0][p[0]] + lum[1][p[1]] + lum[2][p[2]]
			if l <= limit {
				continue
			}
			k := scale[l>>4]
			if dy2 > 0 || i < region.Min.X-x0 || i >= region.Max.X-x0 {
				x := i + x0
				dx := max(region.Min.X-x, x-region.Max.X+1, 0)
				d2 := dx*dx + dy2
				if d2 >= len(fade) {
					continue
				}
				k = 65536 - fade[d2]*(65536-k)>>16
			}
			p[0] = colour.LinearToSRGB12(int64(lin12[p[0]]) * k >> 16)
			p[1] = colour.LinearToSRGB12(int64(lin12[p[1]]) * k >> 16)
			p[2] = colour.LinearToSRGB12(int64(lin12[p[2]]) * k >> 16)
		}
	}
}
