package jpegscale

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"testing"
)

// testCase is one JPEG file with a name.
type testCase struct {
	name string
	data []byte
}

// testFiles builds the conformance corpus: image/jpeg output plus crafted
// subsamplings, restart intervals and non-interleaved scans. Sizes are not
// multiples of the MCU so edge handling is exercised.
func testFiles(t testing.TB) []testCase {
	t.Helper()
	var cases []testCase
	add := func(name string, data []byte) { cases = append(cases, testCase{name, data}) }
	for _, q := range []int{30, 75, 90, 100} {
		add(fmt.Sprintf("std420-q%d", q), stdEncode(t, photo(203, 141, image.YCbCrSubsampleRatio420, int64(q)), q))
	}
	add("std-gray-q80", stdEncode(t, grayPhoto(150, 97, 2), 80))
	ratios := []struct {
		name string
		r    image.YCbCrSubsampleRatio
	}{
		{"444", image.YCbCrSubsampleRatio444}, {"422", image.YCbCrSubsampleRatio422},
		{"440", image.YCbCrSubsampleRatio440}, {"411", image.YCbCrSubsampleRatio411},
		{"410", image.YCbCrSubsampleRatio410}, {"420", image.YCbCrSubsampleRatio420},
	}
	for i, r := range ratios {
		add("crafted"+r.name+"-q85", encodeTest(t, ycbcrSpec(photo(117, 83, r.r, int64(i)), 85)))
	}
	spec := ycbcrSpec(photo(130, 70, image.YCbCrSubsampleRatio420, 7), 90)
	spec.restart = 3
	add("crafted420-restart3", encodeTest(t, spec))
	// image/jpeg counts restart intervals of non-interleaved scans in MCUs
	// of the whole frame rather than single blocks (T.81 A.2.2), so the
	// restart + separate-scan case uses 4:4:4 where both readings agree.
	spec = ycbcrSpec(photo(99, 64, image.YCbCrSubsampleRatio444, 8), 70)
	spec.restart, spec.separate = 5, true
	add("crafted444-separate-scans-restart5", encodeTest(t, spec))
	spec = ycbcrSpec(photo(99, 64, image.YCbCrSubsampleRatio422, 8), 70)
	spec.separate = true
	add("crafted422-separate-scans", encodeTest(t, spec))
	g := graySpec(grayPhoto(77, 45, 9), 60)
	g.restart = 1
	add("crafted-gray-restart1", encodeTest(t, g))
	return cases
}

// atScale decodes forcing denominator d by asking for exactly its short side.
func atScale(t *testing.T, data []byte, d int) image.Image {
	t.Helper()
	cfg, err := DecodeConfig(data)
	if err != nil {
		t.Fatalf("DecodeConfig: %v", err)
	}
	minSide := min(ceilDiv(cfg.Width, d), ceilDiv(cfg.Height, d))
	if got := Scale(cfg.Width, cfg.Height, minSide); got != d {
		t.Fatalf("Scale(%d, %d, %d) = %d, want %d", cfg.Width, cfg.Height, minSide, got, d)
	}
	img, err := Decode(data, minSide)
	if err != nil {
		t.Fatalf("Decode at 1/%d: %v", d, err)
	}
	if w, h := ceilDiv(cfg.Width, d), ceilDiv(cfg.Height, d); img.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("bounds %v, want %dx%d", img.Bounds(), w, h)
	}
	return img
}

func TestDecodeMatchesStdlib(t *testing.T) {
	for _, tc := range testFiles(t) {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := jpeg.Decode(bytes.NewReader(tc.data))
			if err != nil {
				t.Fatalf("image/jpeg cannot decode the test file: %v", err)
			}
			refPlanes := planes(t, ref)
			for _, d := range []int{1, 2, 4, 8} {
				img := atScale(t, tc.data, d)
				if r, ok := ref.(*image.YCbCr); ok {
					got, ok := img.(*image.YCbCr)
					if !ok || got.SubsampleRatio != r.SubsampleRatio {
						t.Fatalf("1/%d: got %T, want YCbCr %v", d, img, r.SubsampleRatio)
					}
				} else if _, ok := img.(*image.Gray); !ok {
					t.Fatalf("1/%d: got %T, want *image.Gray", d, img)
				}
				// Both full decodes use accurate integer IDCTs, so they agree
				// almost exactly; reduced decodes sample the transform at group
				// centres instead of averaging, which costs about a level.
				limit := 0.5
				if d > 1 {
					limit = 3
				}
				for i, p := range planes(t, img) {
					want := refPlanes[i]
					if d > 1 {
						want = boxDown(want, d)
					}
					diff := meanAbsDiff(t, p, want)
					if diff > limit {
						t.Errorf("1/%d channel %d: mean abs diff %.3f > %.1f", d, i, diff, limit)
					}
				}
			}
		})
	}
}

func TestScale(t *testing.T) {
	tests := []struct{ w, h, minSide, want int }{
		{4000, 3000, 720, 4},
		{4000, 3000, 1080, 2},
		{4000, 3000, 375, 8},
		{4000, 3000, 376, 4},
		{4000, 3000, 1501, 1},
		{4000, 3000, 0, 1},
		{4000, 3000, -5, 1},
		{100, 100, 13, 8},
		{100, 100, 14, 4},
		{3000, 4000, 750, 4},
		{10, 10, 720, 1},
	}
	for _, tt := range tests {
		if got := Scale(tt.w, tt.h, tt.minSide); got != tt.want {
			t.Errorf("Scale(%d, %d, %d) = %d, want %d", tt.w, tt.h, tt.minSide, got, tt.want)
		}
	}
}

func TestDecodeConfig(t *testing.T) {
	color := stdEncode(t, photo(203, 141, image.YCbCrSubsampleRatio420, 1), 75)
	gray := stdEncode(t, grayPhoto(33, 17, 1), 75)
	for _, tc := range []struct {
		name string
		data []byte
		w, h int
		gray bool
	}{{"color", color, 203, 141, false}, {"gray", gray, 33, 17, true}} {
		cfg, err := DecodeConfig(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want, _ := jpeg.DecodeConfig(bytes.NewReader(tc.data))
		if cfg.Width != tc.w || cfg.Height != tc.h || cfg.ColorModel != want.ColorModel {
			t.Errorf("%s: got %dx%d %v, want %dx%d %v", tc.name, cfg.Width, cfg.Height, cfg.ColorModel, tc.w, tc.h, want.ColorModel)
		}
	}
}
