package engines_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"testing"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/jpegenc"
)

// BenchmarkFinishPicture is what thumbforge does with a model's answer, without the
// network: decode a 1536x1024 JPEG (gpt-image-1's 16:9 frame, quality 95), find the
// subject, crop to 1280x720, lay the headline, encode the output JPEG.
func BenchmarkFinishPicture(b *testing.B) {
	src := enginetest.Photo(b, "rocket.jpg")
	var answer bytes.Buffer
	jpeg.Encode(&answer, openaifake.Photo(src, 1536, 1024), &jpeg.Options{Quality: 95})
	d := enginetest.Detector(b)
	be, _ := builtin.New(builtin.Config{Faces: d})
	job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Ten budget travel tips for Japan"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		pic, err := engines.DecodePicture(ctx, answer.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		out, subj := be.FitPicture(pic, 1280, 720)
		if err := be.Finish(ctx, out, job, subj, builtin.Layers{Headline: true}); err != nil {
			b.Fatal(err)
		}
		if err := jpegenc.Encode(io.Discard, out, core.OutputQuality); err != nil {
			b.Fatal(err)
		}
	}
}
