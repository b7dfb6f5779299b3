package jpegscale

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"thumbforge/internal/testutil/payload"
)

// progressiveFiles are the committed progressive JPEGs (testdata/progressive/make.sh):
// libjpeg's default scan script at 4:2:0, 4:4:4, 4:2:2, 4:4:0 and grayscale, restart
// intervals in blocks and in MCU rows, spectral selection alone with non-interleaved DC
// scans, and every bit plane refined in its own scan.
func progressiveFiles(t testing.TB) []testCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/progressive/*.jpg")
	if err != nil || len(paths) < 8 {
		t.Fatalf("progressive test files: %v (%d found)", err, len(paths))
	}
	var cases []testCase
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte{0xFF, mSOF2}) {
			t.Fatalf("%s is not progressive", p)
		}
		cases = append(cases, testCase{filepath.Base(p), data})
	}
	return cases
}

// maxAbsDiff is the largest sample difference between two equally sized planes.
func maxAbsDiff(a, b plane) int {
	m := 0
	for y := 0; y < a.h; y++ {
		for x := 0; x < a.w; x++ {
			d := int(a.pix[y*a.stride+x]) - int(b.pix[y*b.stride+x])
			m = max(m, d, -d)
		}
	}
	return m
}

func TestProgressiveMatchesStdlib(t *testing.T) {
	for _, tc := range progressiveFiles(t) {
		t.Run(tc.name, func(t *testing.T) {
			// The reference is image/jpeg's decode of the same coefficients coded as
			// baseline (make.sh), since it misreads some progressive restart layouts.
			base, err := os.ReadFile(filepath.Join("testdata/progressive/baseline", tc.name))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := jpeg.Decode(bytes.NewReader(base))
			if err != nil {
				t.Fatalf("image/jpeg cannot decode the baseline twin: %v", err)
			}
			refPlanes := planes(t, ref)
			// Where image/jpeg reads the progressive file itself, it must agree too.
			if direct, err := jpeg.Decode(bytes.NewReader(tc.data)); err == nil {
				for i, p := range planes(t, atScale(t, tc.data, 1)) {
					want := planes(t, direct)[i]
					if diff, m := meanAbsDiff(t, p, want), maxAbsDiff(p, want); diff > 0.1 || m > 2 {
						t.Errorf("against image/jpeg's decode of the progressive file, channel %d: mean abs diff %.3f, max %d", i, diff, m)
					}
				}
			}
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
				for i, p := range planes(t, img) {
					want := refPlanes[i]
					if d == 1 {
						// The same coefficients through two accurate integer IDCTs.
						if diff, m := meanAbsDiff(t, p, want), maxAbsDiff(p, want); diff > 0.1 || m > 2 {
							t.Errorf("1/1 channel %d: mean abs diff %.3f, max %d (want <= 0.1, <= 2)", i, diff, m)
						}
						continue
					}
					// The reduced IDCTs sample the transform at group centres instead
					// of averaging (decode_test.go): about half a level on these files.
					if diff := meanAbsDiff(t, p, boxDown(want, d)); diff > 1.5 {
						t.Errorf("1/%d channel %d: mean abs diff %.3f from the box-downscaled reference > 1.5", d, i, diff)
					}
				}
			}
		})
	}
}

func TestInspect(t *testing.T) {
	for _, tc := range append(progressiveFiles(t), testFiles(t)...) {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		for _, minSide := range []int{0, 20, 40, 80} {
			info, err := Inspect(tc.data, minSide)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			progressive := bytes.Contains(tc.data, []byte{0xFF, mSOF2})
			if info.Width != cfg.Width || info.Height != cfg.Height || info.Progressive != progressive ||
				info.Scale != Scale(cfg.Width, cfg.Height, minSide) {
				t.Fatalf("%s: Inspect = %+v, header %dx%d progressive %v", tc.name, info, cfg.Width, cfg.Height, progressive)
			}
			// What Decode allocates: the planes it returns (padded to whole MCUs), and
			// the coefficients of a progressive file; Bytes must cover both.
			img, err := Decode(tc.data, minSide)
			if err != nil {
				t.Fatal(err)
			}
			planesBytes := int64(0)
			switch m := img.(type) {
			case *image.Gray:
				planesBytes = int64(len(m.Pix))
			case *image.YCbCr:
				planesBytes = int64(len(m.Y) + len(m.Cb) + len(m.Cr))
			}
			want := planesBytes
			if progressive {
				s := int64(8 / info.Scale)
				want += planesBytes / (s * s) * (2*s*s + 8)
			}
			if info.Bytes != want {
				t.Errorf("%s minSide %d: Inspect.Bytes %d, want %d", tc.name, minSide, info.Bytes, want)
			}
		}
	}
}

// TestProgressivePayload decodes issue 11's hostile progressive JPEG (7000x7000, 4:2:0,
// under 300 KB) at the size inputs need: 1/4, with its coefficients in a few megabytes.
func TestProgressivePayload(t *testing.T) {
	data := payload.ProgressiveJPEG(7000, 7000)
	info, err := Inspect(data, 1280)
	if err != nil {
		t.Fatal(err)
	}
	if info.Scale != 4 || info.Bytes > 30<<20 {
		t.Fatalf("Inspect = %+v, want 1/4 in under 30 MB", info)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	img, err := Decode(data, 1280)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > info.Bytes+1<<20 {
		t.Errorf("Decode allocated %d bytes, Inspect announced %d", got, info.Bytes)
	}
	if img.Bounds() != image.Rect(0, 0, 1750, 1750) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	ref := img.At(0, 0)
	for _, p := range []image.Point{{1749, 1749}, {900, 13}, {3, 1700}} {
		if img.At(p.X, p.Y) != ref {
			t.Fatalf("the flat payload decoded to %v at %v and %v at 0,0", img.At(p.X, p.Y), p, ref)
		}
	}
}

// TestProgressiveHostile: headers that announce more blocks than the data could code are
// refused before the coefficients are allocated; truncated and corrupt files fail cleanly.
func TestProgressiveHostile(t *testing.T) {
	payload := payload.ProgressiveJPEG(7000, 7000)
	// Cut after the first scan header: 7000x7000 announced, a few hundred bytes present.
	cut := payload[:bytes.Index(payload, []byte{0xFF, mSOS})+200]
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(cut, 0)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Decode of a cut 7000x7000 header: %v, want unexpected EOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing the cut file allocated %d bytes", got)
	}
	for _, tc := range progressiveFiles(t) {
		for _, n := range []int{len(tc.data) / 3, len(tc.data) / 2, len(tc.data) - 40} {
			if _, err := Decode(tc.data[:n], 0); err == nil {
				t.Errorf("%s cut to %d bytes decoded without error", tc.name, n)
			}
		}
		// Flip bytes inside the entropy-coded data: any outcome but a panic.
		for i := len(tc.data) / 4; i < len(tc.data)-2; i += 97 {
			bad := bytes.Clone(tc.data)
			bad[i] ^= 0x5A
			Decode(bad, 0)
			Decode(bad, 20)
		}
	}
}

// TestProgressiveMatchesSequential codes the same coefficients as a sequential and as a
// progressive file (encoder_test.go), at every subsampling and with restarts: the two
// decodes must be identical at every scale.
func TestProgressiveMatchesSequential(t *testing.T) {
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	for i, r := range ratios {
		for _, restart := range []int{0, 3} {
			spec := ycbcrSpec(photo(141, 93, r, int64(i)), 80)
			spec.restart = restart
			seq := encodeTest(t, spec)
			spec.progressive = true
			prog := encodeTest(t, spec)
			for _, d := range []int{1, 2, 4, 8} {
				want, got := planes(t, atScale(t, seq, d)), planes(t, atScale(t, prog, d))
				for c := range want {
					if m := maxAbsDiff(got[c], want[c]); m != 0 {
						t.Errorf("%v restart %d 1/%d channel %d: max diff %d from the sequential decode", r, restart, d, c, m)
					}
				}
			}
		}
	}
}

// TestMaxScans: a file that repeats cheap scans is refused after MaxScans of them, so the
// CPU a file costs stays bounded by its pixels rather than by its length.
func TestMaxScans(t *testing.T) {
	data := payload.ProgressiveJPEG(800, 600)
	// The last AC scan (a header and end-of-band runs) repeated until the limit and past it.
	last := bytes.LastIndex(data, []byte{0xFF, mSOS})
	scan := data[last : len(data)-2]
	nscans := bytes.Count(data, []byte{0xFF, mSOS})
	build := func(total int) []byte {
		out := bytes.Clone(data[:len(data)-2])
		for range total - nscans {
			out = append(out, scan...)
		}
		return append(out, 0xFF, mEOI)
	}
	if _, err := Decode(build(MaxScans), 0); err != nil {
		t.Fatalf("%d scans: %v", MaxScans, err)
	}
	if _, err := Decode(build(MaxScans+1), 0); !errors.Is(err, ErrTooManyScans) || !errors.Is(err, ErrFormat) {
		t.Fatalf("%d scans: %v, want ErrTooManyScans", MaxScans+1, err)
	}
}
