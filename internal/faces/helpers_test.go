package faces

import (
	"image"
	"image/color"
	_ "image/jpeg"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	xdraw "golang.org/x/image/draw"

	"thumbforge/internal/core"
)

var (
	detOnce sync.Once
	detVal  *Detector
	detErr  error
)

// testDetector shares one Detector across tests, as the service shares one across requests.
func testDetector(t testing.TB) *Detector {
	t.Helper()
	detOnce.Do(func() { detVal, detErr = NewDetector() })
	if detErr != nil {
		t.Fatalf("NewDetector: %v", detErr)
	}
	return detVal
}

// loadPhoto decodes a testdata photograph into an *image.RGBA.
func loadPhoto(t testing.TB, name string) *image.RGBA {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return toRGBA(img)
}

// scaled resamples img to w x h.
func scaled(img image.Image, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), xdraw.Src, nil)
	return dst
}

// canvas is a w x h image filled with c.
func canvas(w, h int, c color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.Draw(m, m.Bounds(), &image.Uniform{c}, image.Point{}, xdraw.Src)
	return m
}

// place draws img onto dst with its top-left corner at at.
func place(dst *image.RGBA, img image.Image, at image.Point) {
	xdraw.Draw(dst, img.Bounds().Sub(img.Bounds().Min).Add(at), img, img.Bounds().Min, xdraw.Src)
}

// twoFaces is the astronaut twice side by side at 320 px on a 720 x 400 canvas.
func twoFaces(t testing.TB) *image.RGBA {
	t.Helper()
	a := scaled(loadPhoto(t, "astronaut.jpg"), 320, 320)
	m := canvas(720, 400, color.RGBA{90, 90, 100, 255})
	place(m, a, image.Pt(20, 40))
	place(m, a, image.Pt(380, 40))
	return m
}

// otherPerson builds a different-looking face from the astronaut: mirrored, widened by a
// third (broader face, eyes further apart relative to its height) and colour-shifted.
func otherPerson(t testing.TB) *image.RGBA {
	t.Helper()
	a := loadPhoto(t, "astronaut.jpg")
	b := a.Bounds()
	m := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := a.RGBAAt(b.Max.X-1-x, y)
			m.SetRGBA(x, y, color.RGBA{uint8(float64(p.R) * 0.8), p.G, uint8(math.Min(255, float64(p.B)*1.2+20)), 255})
		}
	}
	return scaled(m, b.Dx()*4/3, b.Dy())
}

// centre of a rectangle.
func centre(r image.Rectangle) image.Point { return r.Min.Add(r.Max).Div(2) }

// dist between two points.
func dist(a, b image.Point) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) }

// largest returns the first (largest) face or fails.
func largest(t testing.TB, faces []core.Face, what string) core.Face {
	t.Helper()
	if len(faces) == 0 {
		t.Fatalf("%s: no face detected", what)
	}
	return faces[0]
}
