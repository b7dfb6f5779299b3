package builtin

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"thumbforge/internal/core"
)

func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func render(t testing.TB, e *Engine, job core.ThumbnailJob) (*image.RGBA, *renderInfo) {
	t.Helper()
	img, info, err := e.thumbnail(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	return img, info
}

// scene is a procedural photo: gradient sky, textured blob at (cx,cy) as the salient part.
func scene(w, h int, cx, cy float64, hue int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			r, g, b := 40+100*fy+float64(hue), 90+60*fx, 200-120*fy
			if math.Hypot(fx-cx, (fy-cy)*float64(h)/float64(w)) < 0.12 {
				t := math.Sin(float64(x)*0.7) * math.Cos(float64(y)*0.5)
				r, g, b = 200+50*t, 100+100*t, 60+50*t
			}
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = clamp8(r), clamp8(g), clamp8(b), 255
		}
	}
	return img
}

// meanAbsDiff compares two images on a 64x36 grid.
func meanAbsDiff(a, b image.Image) float64 {
	sa, sb := resize(a, 64, 36), resize(b, 64, 36)
	s := 0.0
	for i := range sa.Pix {
		if i%4 != 3 {
			s += math.Abs(float64(sa.Pix[i]) - float64(sb.Pix[i]))
		}
	}
	return s / float64(64*36*3)
}

// correlation is the Pearson correlation of the lumas of two same-size images.
func correlation(a, b *image.RGBA) float64 {
	var sa, sb, saa, sbb, sab, n float64
	for i := 0; i+3 < len(a.Pix); i += 4 {
		x := relLuminance(a.Pix[i], a.Pix[i+1], a.Pix[i+2])
		y := relLuminance(b.Pix[i], b.Pix[i+1], b.Pix[i+2])
		sa, sb, saa, sbb, sab, n = sa+x, sb+y, saa+x*x, sbb+y*y, sab+x*y, n+1
	}
	cov := sab/n - sa/n*sb/n
	return cov / math.Sqrt((saa/n-sa*sa/n/n)*(sbb/n-sb*sb/n/n))
}

// crop returns the sub-image r of img resized to w x h.
func cropTo(img *image.RGBA, r image.Rectangle, w, h int) *image.RGBA {
	return resizeRect(img, r, w, h)
}

func rgbToYCbCr(r, g, b uint8) (uint8, uint8, uint8) { return color.RGBToYCbCr(r, g, b) }
