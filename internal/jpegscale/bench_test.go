package jpegscale

import (
	"bytes"
	"image"
	"image/jpeg"
	"sync"
	"testing"

	"thumbforge/internal/testutil/cpu"
	"thumbforge/internal/testutil/payload"
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
	start := cpu.Time()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
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
	start := cpu.Time()
	for b.Loop() {
		img, err := Decode(data, minSide)
		if err != nil {
			b.Fatal(err)
		}
		if img.Bounds().Dx() != ceilDiv(4000, d) {
			b.Fatalf("decoded at %v, want 1/%d", img.Bounds(), d)
		}
	}
	cpu.Report(b, start)
}

func BenchmarkDecodeScale1(b *testing.B) { benchScale(b, 1) }
func BenchmarkDecodeScale2(b *testing.B) { benchScale(b, 2) }
func BenchmarkDecodeScale4(b *testing.B) { benchScale(b, 4) }
func BenchmarkDecodeScale8(b *testing.B) { benchScale(b, 8) }

// benchProgressive is the same kind of 4000x3000 4:2:0 photo coded as a progressive file
// (encoder_test.go: a DC scan and one AC scan per component), built once.
var benchProgressive = sync.OnceValue(func() []byte {
	spec := ycbcrSpec(photo(4000, 3000, image.YCbCrSubsampleRatio420, 42), 90)
	spec.progressive = true
	return encodeTest(&testing.B{}, spec)
})

func BenchmarkStdlibProgressive4000x3000(b *testing.B) {
	data := benchProgressive()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
}

// benchProgressiveScale decodes the progressive benchmark image at 1/d.
func benchProgressiveScale(b *testing.B, d int) {
	data := benchProgressive()
	minSide := ceilDiv(3000, d)
	if d == 1 {
		minSide = 0
	}
	info, err := Inspect(data, minSide)
	if err != nil || info.Scale != d {
		b.Fatalf("Inspect: %+v, %v", info, err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		if _, err := Decode(data, minSide); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
	b.ReportMetric(float64(info.Bytes)/(1<<20), "MiB-announced")
}

func BenchmarkProgressiveScale1(b *testing.B) { benchProgressiveScale(b, 1) }
func BenchmarkProgressiveScale2(b *testing.B) { benchProgressiveScale(b, 2) }
func BenchmarkProgressiveScale4(b *testing.B) { benchProgressiveScale(b, 4) }
func BenchmarkProgressiveScale8(b *testing.B) { benchProgressiveScale(b, 8) }

// BenchmarkProgressivePayload7000 decodes issue 11's 7000x7000 progressive payload at
// the size inputs need (1/4 for a 1280-pixel shorter side).
func BenchmarkProgressivePayload7000(b *testing.B) {
	data := payload.ProgressiveJPEG(7000, 7000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data, 1280); err != nil {
			b.Fatal(err)
		}
	}
}
