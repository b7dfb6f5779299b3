package jpegenc

import (
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"sync"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"thumbforge/internal/testutil"
)

// thumbnail renders a w x h frame like the service's outputs: a diagonal
// gradient, a few flat shapes and large and small anti-aliased text.
func thumbnail(tb testing.TB, w, h int) *image.RGBA {
	tb.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			t := float64(x+y) / float64(w+h)
			m.SetRGBA(x, y, color.RGBA{uint8(20 + 200*t), uint8(60 + 80*(1-t)), uint8(180 - 120*t), 255})
		}
	}
	draw.Draw(m, image.Rect(w/20, h/2, w/2, h*9/10), image.NewUniform(color.RGBA{250, 200, 30, 255}), image.Point{}, draw.Src)
	draw.Draw(m, image.Rect(w*6/10, h/10, w*9/10, h/3), image.NewUniform(color.RGBA{15, 15, 30, 255}), image.Point{}, draw.Src)
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		tb.Fatal(err)
	}
	for i, size := range []float64{float64(h) / 8, float64(h) / 20} {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			tb.Fatal(err)
		}
		d := font.Drawer{Dst: m, Src: image.White, Face: face}
		for line := range 3 {
			d.Dot = fixed.P(w/20, int(float64(h)/6+float64(line+4*i)*size*1.2))
			d.DrawString("THUMBFORGE 10 Tips Nobody Tells You!")
		}
		face.Close()
	}
	return m
}

var benchImage = sync.OnceValue(func() *image.RGBA { return thumbnail(&testing.B{}, 1280, 720) })

func BenchmarkStdlibEncode1280x720(b *testing.B) {
	img := benchImage()
	b.ReportAllocs()
	start := testutil.CPUTime()
	n := 0
	cw := &countWriter{}
	for b.Loop() {
		cw.n = 0
		if err := jpeg.Encode(cw, img, &jpeg.Options{Quality: 88}); err != nil {
			b.Fatal(err)
		}
		n = cw.n
	}
	testutil.ReportCPU(b, start)
	b.ReportMetric(float64(n), "bytes")
}

func BenchmarkEncode1280x720(b *testing.B) {
	img := benchImage()
	b.ReportAllocs()
	start := testutil.CPUTime()
	n := 0
	cw := &countWriter{}
	for b.Loop() {
		cw.n = 0
		if err := Encode(cw, img, 88); err != nil {
			b.Fatal(err)
		}
		n = cw.n
	}
	testutil.ReportCPU(b, start)
	b.ReportMetric(float64(n), "bytes")
}

// countWriter discards output, counting bytes, so benchmarks time encoding only.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
