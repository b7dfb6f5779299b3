package faces

import (
	"context"
	"image"
	"image/color"
	"testing"

	"thumbforge/internal/core"
)

// frame1280 is a 1280 x 720 frame with the astronaut's face about 90 px across.
func frame1280(b *testing.B) *image.RGBA {
	b.Helper()
	m := canvas(1280, 720, color.RGBA{60, 70, 90, 255})
	place(m, scaled(loadPhoto(b, "astronaut.jpg"), 420, 420), image.Pt(600, 150))
	return m
}

func BenchmarkDetect1280x720(b *testing.B) {
	d := testDetector(b)
	img := frame1280(b)
	b.ResetTimer()
	for b.Loop() {
		if len(d.Detect(img)) == 0 {
			b.Fatal("no face")
		}
	}
}

func BenchmarkSwap1280x720(b *testing.B) {
	s := NewSwapper(testDetector(b))
	job := core.FaceSwapJob{Target: frame1280(b), Face: otherPerson(b), Format: core.Format16x9}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.FaceSwap(context.Background(), job); err != nil {
			b.Fatal(err)
		}
	}
}
