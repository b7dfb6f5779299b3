package jpegscale

import (
	"image"
	"testing"
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
