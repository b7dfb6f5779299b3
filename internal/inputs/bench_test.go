package inputs

import (
	"image"
	"testing"
)

// BenchmarkDecodeJPEG decodes a 4000x3000 photo-sized JPEG through Loader.Decode with the
// standard decoder (no fast Decoder configured): the cost a reference image pays today.
func BenchmarkDecodeJPEG(b *testing.B) {
	data := encodeJPEG(b, 4000, 3000)
	l := newLoader(b, Config{})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		img, err := l.Decode(data, "image")
		if err != nil {
			b.Fatal(err)
		}
		if img.Bounds() != image.Rect(0, 0, 4000, 3000) {
			b.Fatalf("bounds %v", img.Bounds())
		}
	}
}
