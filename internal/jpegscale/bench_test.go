package jpegscale

import (
	"bytes"
	"image"
	"image/jpeg"
	"sync"
	"testing"

	"thumbforge/internal/testutil"
)

// benchJPEG is a 4000x3000 photo-like 4:2:0 JPEG at quality 90, built once.
var benchJPEG = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, photo(4000, 3000, image.YCbCrSubsampleRatio420, 42), &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

func BenchmarkStdlibDecode4000x3000(b *testing.B) {
	data := benchJPEG()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := testutil.CPUTime()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}

// benchScale decodes the benchmark image at 1/d (minSide is its short side at 1/d).
func benchScale(b *testing.B, d int) {
	data := benchJPEG()
	minSide := ceilDiv(3000, d)
	if d == 1 {
		minSide = 0
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := testutil.CPUTime()
	for b.Loop() {
		img, err := Decode(data, minSide)
		if err != nil {
			b.Fatal(err)
		}
		if img.Bounds().Dx() != ceilDiv(4000, d) {
			b.Fatalf("decoded at %v, want 1/%d", img.Bounds(), d)
		}
	}
	testutil.ReportCPU(b, start)
}

func BenchmarkDecodeScale1(b *testing.B) { benchScale(b, 1) }
func BenchmarkDecodeScale2(b *testing.B) { benchScale(b, 2) }
func BenchmarkDecodeScale4(b *testing.B) { benchScale(b, 4) }
func BenchmarkDecodeScale8(b *testing.B) { benchScale(b, 8) }
