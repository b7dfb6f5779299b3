package inputs

import (
	"context"
	"image"
	"testing"

	"thumbforge/internal/jpegscale"
)

// BenchmarkDecodeJPEG decodes a 4000x3000 photo-sized JPEG through Loader.Decode: "stdlib"
// with no fast Decoder (the fallback path), "scaled" with jpegscale behind the hook at the
// default minimum side (1280, so a 1/2-scale decode).
func BenchmarkDecodeJPEG(b *testing.B) {
	data := encodeJPEG(b, 4000, 3000)
	for _, bc := range []struct {
		name string
		dec  JPEGDecoder
		want image.Rectangle
	}{
		{"stdlib", nil, image.Rect(0, 0, 4000, 3000)},
		{"scaled", jpegscale.Decode, image.Rect(0, 0, 2000, 1500)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := newLoader(b, Config{Decoder: bc.dec})
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				img, err := l.Decode(context.Background(), data, "image")
				if err != nil {
					b.Fatal(err)
				}
				if img.Bounds().Size() != bc.want.Size() {
					b.Fatalf("bounds %v, want %v", img.Bounds(), bc.want)
				}
			}
		})
	}
}
