package engines

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

func TestPromptKeepsTheUsersWordsVerbatim(t *testing.T) {
	user := "  Ten ÉPIC   tips, for \"budget\" travel in 2026!  "
	job := core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: user, Instructions: []string{"wears a red scarf"}}
	for _, mode := range []TextMode{TextOverlay, TextModel} {
		p, neg := promptPlan{job: job, caps: AllCaps, mode: mode}.build()
		if !strings.Contains(p, user) || !strings.Contains(p, "wears a red scarf") {
			t.Fatalf("%s: prompt %q lacks the user's words or the instructions", mode, p)
		}
		noText := strings.Contains(p, "No text") && strings.Contains(neg, "text")
		if (mode == TextOverlay) != noText {
			t.Fatalf("%s: prompt %q negative %q", mode, p, neg)
		}
		if mode == TextModel && !strings.Contains(p, `Include the headline "ÉPIC TIPS`) {
			t.Fatalf("model mode must ask for the headline: %q", p)
		}
	}
}

func TestPromptMdl2WithReferenceIgnoresThePrompt(t *testing.T) {
	ref := image.NewRGBA(image.Rect(0, 0, 8, 8))
	job := core.ThumbnailJob{Model: "mdl_2", Format: core.Format1x1, Prompt: "zebra stripes everywhere", Reference: ref}
	p, _ := promptPlan{job: job, caps: AllCaps, mode: TextOverlay}.build()
	if strings.Contains(p, "zebra") || !strings.Contains(p, "reference") {
		t.Fatalf("prompt %q", p)
	}
	job.Reference = nil // a text job on mdl_2 has nothing but its prompt
	if p, _ := (promptPlan{job: job, caps: AllCaps, mode: TextOverlay}).build(); !strings.Contains(p, "zebra stripes everywhere") {
		t.Fatalf("text job on mdl_2: %q", p)
	}
}

func TestPromptGuidanceFollowsCapabilities(t *testing.T) {
	job := core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "cooking show",
		Persona:     &core.PersonaAssets{Faces: []image.Image{image.NewRGBA(image.Rect(0, 0, 4, 4))}},
		Style:       &core.StyleParams{Palette: []color.RGBA{{0x13, 0x8f, 0x8a, 255}, {0xff, 0x7a, 0x1a, 255}}},
		StyleImages: []image.Image{image.NewRGBA(image.Rect(0, 0, 4, 4))}}
	with, _ := promptPlan{job: job, caps: AllCaps, mode: TextOverlay, crop: true}.build()
	without, _ := promptPlan{job: job, caps: CapText, mode: TextOverlay}.build()
	for _, want := range []string{"face photos", "style reference images", "teal, orange", "16:9 band"} {
		if !strings.Contains(with, want) {
			t.Errorf("with every capability, %q lacks %q", with, want)
		}
	}
	if strings.Contains(without, "face photos") || !strings.Contains(without, "face clearly visible") || strings.Contains(without, "style reference") {
		t.Errorf("without persona and style capabilities: %q", without)
	}
}

func TestStrengthKeepsMoreAtHigherWeight(t *testing.T) {
	hi, med, lo := Strength(core.WeightHigh), Strength(core.WeightMedium), Strength(core.WeightLow)
	if !(0 < hi && hi < med && med < lo && lo < 1) {
		t.Fatalf("strengths high %v medium %v low %v", hi, med, lo)
	}
	if Strength("") != med {
		t.Fatal("no weight must mean medium")
	}
}

func TestTiersOrderFastestToBest(t *testing.T) {
	prev := Tier{}
	for _, m := range core.Models {
		tier := TierOf(m)
		if tier.Model != m || tier.Level <= prev.Level || tier.Steps <= prev.Steps {
			t.Fatalf("%s: %+v after %+v", m, tier, prev)
		}
		prev = tier
	}
	if TierOf("mdl_2").Quality != "low" || TierOf("mdl_4_5").Quality != "high" {
		t.Fatal("OpenAI quality per tier")
	}
}

func TestConfigValidate(t *testing.T) {
	kinds := map[string]Kind{"openai": {Name: "openai", DefaultModel: "m", DefaultConcurrency: 4}}
	cases := []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"builtin", Config{}, ""},
		{"builtin with url", Config{URLs: []string{"http://x"}}, "--engine-url is set but --engine is builtin"},
		{"unknown kind", Config{Kind: "dalle"}, "unknown engine"},
		{"no url", Config{Kind: "openai"}, "needs --engine-url"},
		{"bad scheme", Config{Kind: "openai", URLs: []string{"ftp://x"}}, "want an http"},
		{"no host", Config{Kind: "openai", URLs: []string{"http://"}}, "want an http"},
		{"twice", Config{Kind: "openai", URLs: []string{"http://a", "http://a"}}, "listed twice"},
		{"concurrency", Config{Kind: "openai", URLs: []string{"http://a"}, Concurrency: -1}, "--engine-concurrency"},
		{"text", Config{Kind: "openai", URLs: []string{"http://a"}, Text: "poster"}, "--engine-text"},
		{"ok", Config{Kind: "openai", URLs: []string{"http://127.0.0.1:1234/v1"}}, ""},
	}
	for _, c := range cases {
		err := c.cfg.Validate(kinds)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	cfg := Config{Kind: "openai", URLs: []string{"http://a"}}
	if err := cfg.Validate(kinds); err != nil || cfg.Concurrency != 4 || cfg.Model != "m" || cfg.Text != TextOverlay {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	if got := ParseURLs(" http://a/ ,, http://b/v1/"); len(got) != 2 || got[0] != "http://a" || got[1] != "http://b/v1" {
		t.Fatalf("ParseURLs = %q", got)
	}
}
