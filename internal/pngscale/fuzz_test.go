package pngscale

import (
	"runtime"
	"testing"
)

// FuzzDecode: no panic, the requested size, and no more memory than Bytes announces
// whatever the header claims.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"ct0-d1-interlaced=true", "ct2-d16-interlaced=false", "ct3-d4-interlaced=true",
		"ct6-d8-interlaced=false", "ct4-d16-interlaced=true", "rgb8-trns"} {
		data := cases()[name].encode()
		f.Add(data, 30, 20)
		f.Add(data, 1, 1)
		f.Add(data[:len(data)*2/3], 10, 10)
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h int) {
		hdr, cfgErr := DecodeConfig(data)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := Decode(data, w, h)
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		if cfgErr == nil && w >= 1 && h >= 1 && w <= hdr.Width && h <= hdr.Height && got > hdr.Bytes(w, h)+64<<10 {
			t.Fatalf("Decode allocated %d bytes for %+v at %dx%d; Bytes announced %d", got, hdr, w, h, hdr.Bytes(w, h))
		}
		if err != nil {
			return
		}
		if cfgErr != nil {
			t.Fatalf("Decode succeeded, DecodeConfig failed: %v", cfgErr)
		}
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Fatalf("bounds %v, want %dx%d", b, w, h)
		}
	})
}
