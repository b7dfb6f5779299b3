package jpegscale

import (
	"image"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"thumbforge/internal/testutil/payload"
)

func FuzzDecode(f *testing.F) {
	seeds := [][]byte{
		stdEncode(f, photo(40, 24, image.YCbCrSubsampleRatio420, 1), 75),
		stdEncode(f, grayPhoto(17, 9, 2), 50),
	}
	for _, r := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio440} {
		spec := ycbcrSpec(photo(33, 20, r, 3), 85)
		spec.restart = 2
		seeds = append(seeds, encodeTest(f, spec))
	}
	spec := ycbcrSpec(photo(20, 20, image.YCbCrSubsampleRatio444, 4), 60)
	spec.separate = true
	seeds = append(seeds, encodeTest(f, spec))
	for _, s := range seeds {
		for _, minSide := range []int{0, 3, 6, 12} {
			f.Add(s, minSide)
		}
		f.Add(s[:len(s)/2], 0)
		f.Add(s[:len(s)-5], 4)
	}
	f.Fuzz(func(t *testing.T, data []byte, minSide int) {
		img, err := Decode(data, minSide)
		cfg, cfgErr := DecodeConfig(data)
		if err != nil {
			return
		}
		if cfgErr != nil {
			t.Fatalf("Decode succeeded but DecodeConfig failed: %v", cfgErr)
		}
		d := Scale(cfg.Width, cfg.Height, minSide)
		b := img.Bounds()
		if b.Dx() != ceilDiv(cfg.Width, d) || b.Dy() != ceilDiv(cfg.Height, d) {
			t.Fatalf("bounds %v for %dx%d at 1/%d", b, cfg.Width, cfg.Height, d)
		}
		// Touch the far corner of every plane: it must be inside the buffers.
		_ = img.At(b.Max.X-1, b.Max.Y-1)
	})
}

// FuzzDecodeProgressive feeds progressive files (the committed corpus and a small copy
// of issue 11's payload) to Decode: no panic, the announced size, and what a decode
// allocates bounded by what Inspect announced, so a hostile header costs nothing.
func FuzzDecodeProgressive(f *testing.F) {
	paths, _ := filepath.Glob("testdata/progressive/*.jpg")
	seeds := [][]byte{payload.ProgressiveJPEG(300, 200)}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, s := range seeds {
		for _, minSide := range []int{0, 10, 30} {
			f.Add(s, minSide)
		}
		f.Add(s[:len(s)*2/3], 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, minSide int) {
		info, inspectErr := Inspect(data, minSide)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := Decode(data, minSide)
		runtime.ReadMemStats(&after)
		// Decode's own bookkeeping is a few kilobytes; everything else is announced.
		slack := uint64(256 << 10)
		if got := after.TotalAlloc - before.TotalAlloc; inspectErr == nil && got > uint64(info.Bytes)+slack ||
			inspectErr != nil && got > slack {
			t.Fatalf("Decode allocated %d bytes; Inspect announced %d (%v)", got, info.Bytes, inspectErr)
		}
		if err != nil {
			return
		}
		if inspectErr != nil {
			t.Fatalf("Decode succeeded but Inspect failed: %v", inspectErr)
		}
		b := img.Bounds()
		if b.Dx() != ceilDiv(info.Width, info.Scale) || b.Dy() != ceilDiv(info.Height, info.Scale) {
			t.Fatalf("bounds %v for %+v", b, info)
		}
		_ = img.At(b.Max.X-1, b.Max.Y-1)
	})
}
