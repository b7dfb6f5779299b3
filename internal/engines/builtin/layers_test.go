package builtin

import (
	"math"
	"testing"
)

// TestFillBandsMatchesSequentialBlends: the one-pass band fill equals blending each
// band on its own with the pixel's coverage under the curve, to rounding.
func TestFillBandsMatchesSequentialBlends(t *testing.T) {
	const w, h = 203, 120
	var bands []band
	for i := range 4 {
		top := make([]float64, w)
		for x := range top {
			top[x] = float64(h)*(0.3+0.15*float64(i)) + 18*math.Sin(float64(x)*0.05*float64(i+1)+float64(i))
		}
		bands = append(bands, band{top: top, c: rgb(uint8(60*i), 200, uint8(255-50*i)), a: 0.2 + 0.1*float64(i)})
	}
	bands[3].top[7] = -5 // a curve above the canvas
	got := scene(w, h, 0.5, 0.5, 0)
	want := cloneRGBA(got)
	fillBands(got, bands)
	for y := range h {
		for x := range w {
			p := want.Pix[want.PixOffset(x, y):]
			for _, b := range bands {
				if cov := clamp(float64(y)+1-b.top[x], 0, 1); cov > 0 {
					blend256(p, b.c, int32(float64(alpha256(b.a))*cov+0.5))
				}
			}
		}
	}
	worst := 0
	for i := range got.Pix {
		worst = max(worst, abs8(got.Pix[i], want.Pix[i]))
	}
	if worst > 3 {
		t.Fatalf("max channel difference %d", worst)
	}
	if string(got.Pix) == string(scene(w, h, 0.5, 0.5, 0).Pix) {
		t.Fatal("nothing drawn")
	}
}

func abs8(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
