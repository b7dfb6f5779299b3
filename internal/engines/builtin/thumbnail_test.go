package builtin

import (
	"context"
	"errors"
	"image"
	"sort"
	"testing"
	"time"

	"thumbforge/internal/core"
)

func TestOutputSizeEveryFormatAndModel(t *testing.T) {
	e := newEngine(t)
	ref := scene(900, 700, 0.3, 0.5, 0)
	for _, f := range core.Formats {
		for _, m := range core.Models {
			for _, r := range []image.Image{nil, ref} {
				img, _ := render(t, e, core.ThumbnailJob{Model: m, Format: f, Prompt: "Best pizza recipe ever", Reference: r, Seed: 1})
				w, h, _ := f.Size()
				if img.Bounds() != image.Rect(0, 0, w, h) {
					t.Errorf("%s %s: bounds %v", m, f, img.Bounds())
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	e := newEngine(t)
	job := core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format16x9, Prompt: "Crypto crash explained", Seed: 7}
	a, _ := render(t, e, job)
	b, _ := render(t, e, job)
	if string(a.Pix) != string(b.Pix) {
		t.Fatal("same job gave different pixels")
	}
}

func TestDifferentPromptsDiffer(t *testing.T) {
	e := newEngine(t)
	prompts := []string{"ocean waves", "ocean wave", "money tips", "Money Tips", "gaming setup", "cats", "dogs",
		"how to cook pasta", "space facts", "the", "a b c", "horror night", "quilting", "quilting today", "10 tips", "11 tips"}
	seen := map[string]string{}
	for _, p := range prompts {
		img, _ := render(t, e, core.ThumbnailJob{Model: "mdl_3", Format: core.Format1x1, Prompt: p, Seed: 1})
		k := string(img.Pix)
		if prev, ok := seen[k]; ok {
			t.Errorf("%q and %q gave the same image", prev, p)
		}
		seen[k] = p
	}
}

func TestHeadlineWords(t *testing.T) {
	tests := []struct {
		prompt string
		want   []string
	}{
		{"how to make the best pizza", []string{"BEST", "PIZZA"}},
		{"I made $10k with 3 Simple tricks", []string{"$10K", "3", "SIMPLE", "TRICKS"}},
		{"", nil},
		{"the of and", nil},
	}
	for _, tt := range tests {
		got := headline(tt.prompt, 1)
		if len(got) != len(tt.want) {
			t.Errorf("%q: got %v want %v", tt.prompt, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: got %v want %v", tt.prompt, got, tt.want)
			}
		}
	}
	if got := headline("cats", 1); len(got) != 2 {
		t.Errorf("one-word prompt should be completed to two words, got %v", got)
	}
	if got := headline("one two three four five six seven eight nine ten eleven", 1); len(got) > 5 {
		t.Errorf("headline too long: %v", got)
	}
}

// TestHeadlineContrastAndInside measures WCAG contrast between the text pixels and the
// pixels around the text, and that the text lies inside the image, across themes,
// formats, models and a bright reference photo.
func TestHeadlineContrastAndInside(t *testing.T) {
	e := newEngine(t)
	white := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := range white.Pix {
		white.Pix[i] = 250
	}
	prompts := []string{"ocean surf trip", "travel summer sunset beach", "Quilting with Grandma Supercalifragilistic", "love fashion beauty"}
	for _, f := range core.Formats {
		for _, m := range []string{"mdl_3", "mdl_4"} {
			for _, p := range prompts {
				for _, ref := range []image.Image{nil, white} {
					img, info := render(t, e, core.ThumbnailJob{Model: m, Format: f, Prompt: p, Reference: ref, Seed: 3})
					if info.textMask == nil {
						t.Fatalf("%s %s %q: no headline drawn", m, f, p)
					}
					if !info.text.ink.In(img.Rect) {
						t.Errorf("%s %s %q: text %v outside image", m, f, p, info.text.ink)
					}
					if r := measuredContrast(img, info); r < 4.5 {
						t.Errorf("%s %s %q ref=%v: contrast %.2f < 4.5", m, f, p, ref != nil, r)
					}
				}
			}
		}
	}
}

// measuredContrast returns, per headline line, the contrast of the median text pixel
// against the 95th-percentile-worst background pixel near the text (pixels in the ink
// box, at least 3 px away from any text), and gives the minimum over lines.
func measuredContrast(img *image.RGBA, info *renderInfo) float64 {
	near := dilate(info.textMask, info.text.ink.Inset(-8).Intersect(img.Rect), 3)
	worst := 1e9
	for _, ln := range info.text.lines {
		var text, bg []float64
		r := ln.ink.Intersect(img.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				p := img.Pix[img.PixOffset(x, y):]
				l := relLuminance(p[0], p[1], p[2])
				switch {
				case info.textMask.AlphaAt(x, y).A == 255:
					text = append(text, l)
				case near.AlphaAt(x, y).A == 0:
					bg = append(bg, l)
				}
			}
		}
		if len(text) == 0 || len(bg) == 0 {
			continue
		}
		sort.Float64s(text)
		sort.Float64s(bg)
		tl := text[len(text)/2]
		var bl float64
		if tl > bg[len(bg)/2] { // light text: the brightest background is the worst case
			bl = bg[len(bg)*95/100]
		} else {
			bl = bg[len(bg)*5/100]
		}
		worst = min(worst, contrastRatio(tl, bl))
	}
	return worst
}

func TestWeightOrdersSimilarity(t *testing.T) {
	e := newEngine(t)
	ref := scene(1000, 800, 0.6, 0.4, 30)
	cover := coverCrop(ref, nil, 1280, 720)
	var diffs []float64
	for _, w := range []core.Weight{core.WeightHigh, core.WeightMedium, core.WeightLow} {
		img, _ := render(t, e, core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: ref, Weight: w, Prompt: "ignored words", Seed: 2})
		diffs = append(diffs, meanAbsDiff(img, cover))
	}
	if !(diffs[0] < diffs[1] && diffs[1] < diffs[2]) {
		t.Fatalf("difference to reference high/medium/low = %v, want increasing", diffs)
	}
}

func TestMdl2IgnoresPrompt(t *testing.T) {
	e := newEngine(t)
	ref := scene(800, 600, 0.5, 0.5, 0)
	a, ia := render(t, e, core.ThumbnailJob{Model: "mdl_2", Format: core.Format1x1, Reference: ref, Prompt: "huge fire", Seed: 1})
	b, _ := render(t, e, core.ThumbnailJob{Model: "mdl_2", Format: core.Format1x1, Reference: ref, Prompt: "ocean calm", Seed: 1})
	if string(a.Pix) != string(b.Pix) || ia.textMask != nil {
		t.Fatal("mdl_2 output depends on the prompt or has a headline")
	}
}

func TestCoverCropKeepsAspectAndSalientRegion(t *testing.T) {
	// A wide image with the detailed subject on the right: a 9:16 crop must include it.
	ref := scene(2000, 800, 0.85, 0.5, 0)
	c := salientCentre(ref, nil, 720, 1280)
	r := coverRect(ref.Bounds(), 720, 1280, c)
	if d := float64(r.Dx())/float64(r.Dy()) - 720.0/1280; d > 0.01 || d < -0.01 {
		t.Fatalf("crop %v has the wrong aspect", r)
	}
	if !image.Pt(1700, 400).In(r) {
		t.Fatalf("crop %v misses the subject at x=1700", r)
	}
	// With a face detector the face wins over detail.
	c = salientCentre(ref, fakeFaces{image.Rect(20, 100, 60, 140)}, 720, 1280)
	if r := coverRect(ref.Bounds(), 720, 1280, c); r.Min.X > 100 {
		t.Fatalf("crop %v ignores the face", r)
	}
}

type fakeFaces struct{ box image.Rectangle } // boxes in the coordinates of a 480 px copy

func (f fakeFaces) Detect(img image.Image) []core.Face { return []core.Face{{Box: f.box}} }

func TestSupportImageVisible(t *testing.T) {
	e := newEngine(t)
	support := scene(600, 400, 0.3, 0.6, 80)
	img, info := render(t, e, core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: "new phone review", Support: support, Seed: 4})
	if info.card.Empty() {
		t.Fatal("no card drawn")
	}
	got := cropTo(img, info.card, 60, 40)
	want := resize(support, 60, 40)
	if c := correlation(got, want); c < 0.8 {
		t.Fatalf("card region correlation with the support image %.2f", c)
	}
	_, info3 := render(t, e, core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "new phone review", Support: support, Seed: 4})
	if !info3.card.Empty() {
		t.Fatal("mdl_3 drew a support image")
	}
}

func TestPersonaFaceVisible(t *testing.T) {
	e := newEngine(t)
	face := scene(200, 200, 0.5, 0.5, 120)
	for _, f := range core.Formats {
		img, info := render(t, e, core.ThumbnailJob{Model: "mdl_3", Format: f, Prompt: "my workout routine", Persona: &core.PersonaAssets{Faces: []image.Image{face}}, Seed: 5})
		h := float64(info.face.Dy()) / float64(img.Rect.Dy())
		if h < 0.28 || h > 0.45 {
			t.Errorf("%s: face height %.2f of the output", f, h)
		}
		// Compare the inner part of the ellipse, which is pasted unblended.
		inner := info.face.Inset(info.face.Dx() / 4)
		got := cropTo(img, inner, 40, 40)
		want := resizeRect(face, image.Rect(50, 50, 150, 150), 40, 40)
		if c := correlation(got, want); c < 0.9 {
			t.Errorf("%s: face region correlation %.2f", f, c)
		}
		if info.face.Overlaps(info.text.ink) {
			t.Errorf("%s: face %v overlaps headline %v", f, info.face, info.text.ink)
		}
	}
}

func TestStyleMovesLabMean(t *testing.T) {
	e := newEngine(t)
	st := &core.StyleParams{LabMean: [3]float64{70, 30, -40}, LabStd: [3]float64{15, 10, 10}}
	for _, ref := range []image.Image{nil, scene(800, 600, 0.5, 0.5, 0)} {
		job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "money tips", Reference: ref, Seed: 6}
		plain, _ := render(t, e, job)
		job.Style = st
		styled, _ := render(t, e, job)
		m0, _ := LabStats(plain)
		m1, _ := LabStats(styled)
		d0, d1 := 0.0, 0.0
		for i := range 3 {
			d0 += sq(m0[i] - st.LabMean[i])
			d1 += sq(m1[i] - st.LabMean[i])
		}
		if d1 >= d0*0.6 {
			t.Errorf("style did not move the Lab mean: distance %.1f -> %.1f", d0, d1)
		}
	}
}

func TestInstructionsChangeOutput(t *testing.T) {
	e := newEngine(t)
	job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "weekly vlog", Seed: 1}
	a, _ := render(t, e, job)
	job.Instructions = []string{"always mention SPACE"}
	b, info := render(t, e, job)
	if string(a.Pix) == string(b.Pix) {
		t.Fatal("instructions did not change the output")
	}
	found := false
	for _, l := range info.text.lines {
		found = found || containsWord(l.text, "SPACE")
	}
	if !found {
		t.Errorf("instruction word missing from headline %+v", info.text.lines)
	}
}

func containsWord(s, w string) bool {
	for _, x := range tokenize(s) {
		if x.text == w {
			return true
		}
	}
	return false
}

func TestCancelledContext(t *testing.T) {
	e := newEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Thumbnail(ctx, core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "x y"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestScoringTimeout(t *testing.T) {
	e := newEngine(t)
	_, err := e.Thumbnail(context.Background(), core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format16x9, Prompt: "x y", ScoringTimeout: time.Nanosecond})
	if core.CodeOf(err) != core.CodeScoringTimeout {
		t.Fatalf("got %v", err)
	}
}

func TestScoreOrdersFlatBelowRendered(t *testing.T) {
	e := newEngine(t)
	flat := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	for i := range flat.Pix {
		flat.Pix[i] = 128
	}
	sf, err := e.Score(context.Background(), flat)
	if err != nil {
		t.Fatal(err)
	}
	img, _ := render(t, e, core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: "Insane gaming setup tour", Seed: 1})
	sr, _ := e.Score(context.Background(), img)
	for _, s := range []core.Score{sf, sr} {
		if s.Score < 0 || s.Score > 100 {
			t.Fatalf("score %d out of range", s.Score)
		}
	}
	if sf.Score >= 30 || sr.Score <= sf.Score+30 {
		t.Fatalf("flat %d, rendered %d", sf.Score, sr.Score)
	}
	if len(sf.Advice) == 0 {
		t.Fatal("flat image got no advice")
	}
}
