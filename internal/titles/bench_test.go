package titles

import (
	"context"
	"image/color"
	"testing"

	"thumbforge/internal/core"
)

// typicalPrompt is a 200-character video description.
const typicalPrompt = "How to build a budget gaming PC in 2025: I pick every part for under 800 dollars, " +
	"compare the RTX 4060 and RX 7600, and show the whole build step by step for nervous first-time builders at home."

func BenchmarkBuiltinTitles(b *testing.B) {
	if len(typicalPrompt) < 190 || len(typicalPrompt) > 210 {
		b.Fatalf("prompt has %d characters", len(typicalPrompt))
	}
	t := &Builtin{}
	ctx := context.Background()
	n := 0
	for b.Loop() {
		res, err := t.Titles(ctx, core.TitleRequest{Prompt: typicalPrompt, Seed: uint64(n)})
		if err != nil {
			b.Fatal(err)
		}
		n += len(res.Titles)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "titles/s")
}

func BenchmarkBuiltinImageOnly(b *testing.B) {
	t := &Builtin{}
	img := halves(color.RGBA{0, 150, 140, 255}, color.Black)
	ctx := context.Background()
	for b.Loop() {
		if _, err := t.Titles(ctx, core.TitleRequest{Image: img}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompact3000(b *testing.B) {
	prompt := ""
	for len(prompt) < 3000 {
		prompt += typicalPrompt + " "
	}
	prompt = prompt[:3000]
	for b.Loop() {
		Compact(prompt, MaxPrompt)
	}
}
