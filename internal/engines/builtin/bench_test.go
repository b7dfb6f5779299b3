package builtin

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"testing"

	"thumbforge/internal/core"

	"thumbforge/internal/testutil"
)

// benchJob renders job in a loop reporting CPU time and allocations; with encode it
// also JPEG-encodes (stdlib, quality 88) as the HTTP service does.
func benchJob(b *testing.B, job core.ThumbnailJob, encode bool) {
	e := newEngine(b)
	var buf bytes.Buffer
	b.ReportAllocs()
	start := testutil.CPUTime()
	for b.Loop() {
		img, err := e.Thumbnail(context.Background(), job)
		if err != nil {
			b.Fatal(err)
		}
		if encode {
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
				b.Fatal(err)
			}
		}
	}
	testutil.ReportCPU(b, start)
}

func BenchmarkThumbnailText16x9(b *testing.B) {
	benchJob(b, core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii", Seed: 1}, false)
}

func BenchmarkThumbnailText16x9Encode(b *testing.B) {
	benchJob(b, core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii", Seed: 1}, true)
}

// BenchmarkThumbnailTextThemes cycles through prompts of every theme (every motif) and
// every format, so one lucky motif cannot hide a slow one.
func BenchmarkThumbnailTextThemes(b *testing.B) {
	e := newEngine(b)
	prompts := []string{"Surfing the biggest ocean waves", "spicy fire noodle challenge", "passive income stocks",
		"golang code review", "nasa mars rocket", "gaming boss battle", "pizza recipe", "forest hiking",
		"gym workout abs", "guitar music beats", "travel japan summer", "haunted horror night",
		"love fashion beauty", "math school lesson", "quilting with grandma"}
	b.ReportAllocs()
	start := testutil.CPUTime()
	i := 0
	for b.Loop() {
		job := core.ThumbnailJob{Model: "mdl_3", Format: core.Formats[i%3], Prompt: prompts[i%len(prompts)], Seed: uint64(i)}
		if _, err := e.Thumbnail(context.Background(), job); err != nil {
			b.Fatal(err)
		}
		i++
	}
	testutil.ReportCPU(b, start)
}

func BenchmarkThumbnailText45(b *testing.B) {
	benchJob(b, core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii", Seed: 1}, false)
}

func BenchmarkThumbnailImage(b *testing.B) {
	benchJob(b, core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Travel vlog Japan", Reference: scene(1280, 720, 0.4, 0.5, 0), Seed: 1}, false)
}

// BenchmarkThumbnailImageMdl2 is the image path of bench/vips.sh after decoding: a
// 2000x1500 YCbCr 4:2:0 reference (what jpegscale gives for a 4000x3000 JPEG), mdl_2.
func BenchmarkThumbnailImageMdl2(b *testing.B) {
	benchJob(b, core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: ycbcrScene(2000, 1500), Seed: 1}, true)
}

// BenchmarkJPEGEncode1280x720 is the stdlib encode every request pays for.
func BenchmarkJPEGEncode1280x720(b *testing.B) {
	e := newEngine(b)
	img, err := e.Thumbnail(context.Background(), core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii", Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	start := testutil.CPUTime()
	for b.Loop() {
		buf.Reset()
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}

func ycbcrScene(w, h int) *image.YCbCr {
	src := scene(w, h, 0.4, 0.5, 0)
	dst := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			o := src.PixOffset(x, y)
			yy, cb, cr := rgbToYCbCr(src.Pix[o], src.Pix[o+1], src.Pix[o+2])
			dst.Y[dst.YOffset(x, y)] = yy
			if x%2 == 0 && y%2 == 0 {
				dst.Cb[dst.COffset(x, y)], dst.Cr[dst.COffset(x, y)] = cb, cr
			}
		}
	}
	return dst
}

func BenchmarkEdit(b *testing.B) {
	e := newEngine(b)
	job := core.EditJob{Image: scene(1280, 720, 0.4, 0.5, 0), Instruction: `make it brighter, add text "NEW" and add a vignette`}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Edit(context.Background(), job); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	e := newEngine(b)
	img := scene(1280, 720, 0.4, 0.5, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Score(context.Background(), img); err != nil {
			b.Fatal(err)
		}
	}
}
