package pngscale

import (
	"bytes"
	"image/png"
	"sync"
	"testing"

	"thumbforge/internal/testutil/cpu"
	"thumbforge/internal/testutil/payload"
)

// BenchmarkPayload16 decodes issue 11's 7000x7000 16-bit PNG to the 1280x1280 inputs keep.
func BenchmarkPayload16(b *testing.B) {
	data := payload.PNG16(7000, 7000, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		if _, err := Decode(data, 1280, 1280); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
}

// photo8 is a 4000x3000 8-bit RGB PNG of the photo-like test picture, built once.
var photo8 = sync.OnceValue(func() []byte {
	p := picture(4000, 3000, 8, 2, 9)
	return p.encode()
})

// BenchmarkPhoto8Reduce decodes a 4000x3000 8-bit RGB PNG to 1707x1280.
func BenchmarkPhoto8Reduce(b *testing.B) {
	data := photo8()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		if _, err := Decode(data, 1707, 1280); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
}

// BenchmarkStdlibPhoto8 is image/png on the same file, at full size.
func BenchmarkStdlibPhoto8(b *testing.B) {
	data := photo8()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpu.Time()
	for b.Loop() {
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, start)
}
