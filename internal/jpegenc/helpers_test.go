package jpegenc

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand"
	"testing"
)

// testImage is a named generator of w x h opaque RGBA content.
type testImage struct {
	name   string
	slack  float64 // allowed PSNR shortfall against image/jpeg, dB
	smooth bool    // smooth content must reach the PSNR floor
	gen    func(w, h int) *image.RGBA
}

var testImages = []testImage{
	{"gradient", 0.5, true, gradient},
	{"noise", 0.5, false, noise},
	{"edges", 0.5, false, edges},
	// Pixel checkerboards saturate on decode, so PSNR jumps by +-2 dB with
	// which side of a rounding step a coefficient lands on (image/jpeg's own
	// PSNR is not monotonic in quality here); measured, ours is as often ahead.
	{"checker", 2.5, false, checker},
	{"solid", 0.5, true, func(w, h int) *image.RGBA { return solid(w, h, color.RGBA{200, 40, 90, 255}) }},
	{"white", 0.5, true, func(w, h int) *image.RGBA { return solid(w, h, color.RGBA{255, 255, 255, 255}) }},
	{"black", 0.5, true, func(w, h int) *image.RGBA { return solid(w, h, color.RGBA{0, 0, 0, 255}) }},
}

func gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(max(1, w-1)), float64(y)/float64(max(1, h-1))
			m.SetRGBA(x, y, color.RGBA{uint8(255 * fx), uint8(255 * fy), uint8(128 + 100*math.Sin(3*fx+2*fy)), 255})
		}
	}
	return m
}

func noise(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewSource(int64(w*7919 + h)))
	for i := range m.Pix {
		m.Pix[i] = uint8(rng.Intn(256))
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

// edges draws text-like strokes: thin dark bars and blocks on a light field.
func edges(w, h int) *image.RGBA {
	m := solid(w, h, color.RGBA{240, 235, 220, 255})
	for y := range h {
		for x := range w {
			switch {
			case (x/3)%5 == 0 && (y/7)%2 == 0:
				m.SetRGBA(x, y, color.RGBA{10, 10, 20, 255})
			case x > w/2 && y > h/2 && (x+y)%11 < 4:
				m.SetRGBA(x, y, color.RGBA{230, 30, 30, 255})
			}
		}
	}
	return m
}

// checker alternates black and white pixels: the largest AC coefficients
// 8-bit samples can produce, which stress the magnitude categories.
func checker(w, h int) *image.RGBA {
	m := solid(w, h, color.RGBA{0, 0, 0, 255})
	for y := range h {
		for x := range w {
			if (x+y)%2 == 0 {
				m.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
	return m
}

func solid(w, h int, c color.RGBA) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(m.Pix); i += 4 {
		m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return m
}

// decode decodes data with image/jpeg, failing the test on error or on a
// size different from want.
func decode(t testing.TB, data []byte, want image.Rectangle) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg cannot decode our output: %v", err)
	}
	if img.Bounds().Size() != want.Size() {
		t.Fatalf("decoded size %v, want %v", img.Bounds().Size(), want.Size())
	}
	return img
}

// psnr is the RGB peak signal-to-noise ratio of got against src in dB
// (capped at 99 for identical images).
func psnr(src, got image.Image) float64 {
	sb, gb := src.Bounds(), got.Bounds()
	var sum float64
	for y := 0; y < sb.Dy(); y++ {
		for x := 0; x < sb.Dx(); x++ {
			r0, g0, b0, _ := src.At(sb.Min.X+x, sb.Min.Y+y).RGBA()
			r1, g1, b1, _ := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
			for _, d := range []float64{float64(r0>>8) - float64(r1>>8), float64(g0>>8) - float64(g1>>8), float64(b0>>8) - float64(b1>>8)} {
				sum += d * d
			}
		}
	}
	mse := sum / float64(3*sb.Dx()*sb.Dy())
	if mse == 0 {
		return 99
	}
	return min(99, 10*math.Log10(255*255/mse))
}

// encodeOurs encodes with Encode, failing the test on error.
func encodeOurs(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, img, q); err != nil {
		t.Fatalf("Encode(q=%d): %v", q, err)
	}
	return buf.Bytes()
}

// encodeStd encodes with image/jpeg, the reference we are measured against.
func encodeStd(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
