package engine

import (
	"context"
	"testing"

	"thumbforge/internal/core"
)

func BenchmarkThumbnailText16x9(b *testing.B) {
	e := newEngine(b)
	job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii", Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Thumbnail(context.Background(), job); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkThumbnailImage(b *testing.B) {
	e := newEngine(b)
	job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Travel vlog Japan", Reference: scene(1280, 720, 0.4, 0.5, 0), Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Thumbnail(context.Background(), job); err != nil {
			b.Fatal(err)
		}
	}
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
