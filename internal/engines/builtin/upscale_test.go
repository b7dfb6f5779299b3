package builtin

import (
	"image"
	"math"
	"testing"
)

// TestUpscale2xMatchesBilinear compares upscale2x with a float bilinear 2x upscale
// (pixel centres aligned, edges clamped) on random pixels, for even and odd sizes.
func TestUpscale2xMatchesBilinear(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{1280, 720}, {7, 5}, {1, 1}, {135, 3}} {
		sw, sh := (sz.w+1)/2, (sz.h+1)/2
		src := image.NewRGBA(image.Rect(0, 0, sw, sh))
		r := newRNG(uint64(sz.w))
		for i := range src.Pix {
			src.Pix[i] = uint8(r.next())
		}
		dst := image.NewRGBA(image.Rect(0, 0, sz.w, sz.h))
		upscale2x(dst, src)
		tap := func(o, n int) (int, int, float64) { // nearest source index, the other one, its weight
			i := o / 2
			j := i - 1
			if o%2 == 1 {
				j = i + 1
			}
			return i, min(max(j, 0), n-1), 0.25
		}
		worst := 0.0
		for y := range sz.h {
			y0, y1, wy := tap(y, sh)
			for x := range sz.w {
				x0, x1, wx := tap(x, sw)
				for c := range 4 {
					at := func(x, y int) float64 { return float64(src.Pix[src.PixOffset(x, y)+c]) }
					want := (1-wy)*((1-wx)*at(x0, y0)+wx*at(x1, y0)) + wy*((1-wx)*at(x0, y1)+wx*at(x1, y1))
					worst = max(worst, math.Abs(float64(dst.Pix[dst.PixOffset(x, y)+c])-want))
				}
			}
		}
		if worst > 1.5 {
			t.Errorf("%dx%d: off by %.2f levels from bilinear", sz.w, sz.h, worst)
		}
	}
}
