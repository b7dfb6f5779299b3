package builtin

import (
	"image"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// TestResizeYCbCrMatchesGeneric: the one-pass YCbCr resize gives what converting and
// scaling with x/image/draw gives, for every chroma layout and a cropped source.
func TestResizeYCbCrMatchesGeneric(t *testing.T) {
	rgb := scene(400, 300, 0.4, 0.5, 0)
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440} {
		y := image.NewYCbCr(rgb.Rect, ratio)
		for py := range 300 {
			for px := range 400 {
				o := rgb.PixOffset(px, py)
				yy, cb, cr := rgbToYCbCr(rgb.Pix[o], rgb.Pix[o+1], rgb.Pix[o+2])
				y.Y[y.YOffset(px, py)] = yy
				y.Cb[y.COffset(px, py)], y.Cr[y.COffset(px, py)] = cb, cr
			}
		}
		for _, src := range []image.Rectangle{y.Rect, image.Rect(50, 40, 370, 220)} {
			got := resizeRect(y, src, 256, 144)
			want := image.NewRGBA(got.Rect)
			xdraw.ApproxBiLinear.Scale(want, want.Rect, y, src, xdraw.Src, nil)
			if d := meanAbsDiff(got, want); d > 3 {
				t.Errorf("%v %v: mean difference %.2f to x/image/draw", ratio, src, d)
			}
		}
	}
}
