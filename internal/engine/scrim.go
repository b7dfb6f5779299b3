package engine

import "image"

// scrim darkens the pixels of region whose relative luminance exceeds lmax down to lmax
// (scaling linear light, so hue is kept), fading out over feather pixels outside region.
// This is what guarantees the headline's WCAG contrast on any background: text of
// luminance L reaches ratio (L+0.05)/(lmax+0.05) against everything behind it.
func scrim(dst *image.RGBA, region image.Rectangle, lmax float64, feather int) {
	if lmax < 0 {
		lmax = 0
	}
	outer := region.Inset(-feather).Intersect(dst.Rect)
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		dy := max(region.Min.Y-y, y-region.Max.Y+1, 0)
		row := dst.Pix[dst.PixOffset(0, y):]
		for x := outer.Min.X; x < outer.Max.X; x++ {
			dx := max(region.Min.X-x, x-region.Max.X+1, 0)
			w := 1.0
			if d := max(dx, dy); d > 0 {
				w = 1 - float64(d)/float64(feather+1)
			}
			p := row[4*x : 4*x+3 : 4*x+3]
			lr, lg, lb := srgbToLinear[p[0]], srgbToLinear[p[1]], srgbToLinear[p[2]]
			l := 0.2126*lr + 0.7152*lg + 0.0722*lb
			if l <= lmax {
				continue
			}
			k := 1 - w*(1-lmax/l)
			p[0], p[1], p[2] = linearToSRGB8(lr*k), linearToSRGB8(lg*k), linearToSRGB8(lb*k)
		}
	}
}
