package engines

import "thumbforge/internal/core"

// Tier is what a v2 model name means on a generative backend: mdl_2 the fastest and
// cheapest settings, mdl_4_5 the best.
type Tier struct {
	Model string // the v2 model name
	// Level is 1 (mdl_2) to 4 (mdl_4_5).
	Level int
	// Quality is OpenAI's quality setting: low, medium, high, high.
	Quality string
	// Steps are sampling steps for diffusion backends (ComfyUI, sdapi).
	Steps int
}

var tiers = map[string]Tier{
	"mdl_2":   {Model: "mdl_2", Level: 1, Quality: "low", Steps: 15},
	"mdl_3":   {Model: "mdl_3", Level: 2, Quality: "medium", Steps: 20},
	"mdl_4":   {Model: "mdl_4", Level: 3, Quality: "high", Steps: 28},
	"mdl_4_5": {Model: "mdl_4_5", Level: 4, Quality: "high", Steps: 36},
}

// TierOf returns the tier of a v2 model name; unknown names get mdl_3's.
func TierOf(model string) Tier {
	if t, ok := tiers[model]; ok {
		return t
	}
	return tiers["mdl_3"]
}

// Strength is the diffusion strength ("denoise") for an image weight: how far a picture
// may move from its reference. A higher weight keeps strictly more of the reference.
func Strength(w core.Weight) float64 {
	switch w {
	case core.WeightHigh:
		return 0.35
	case core.WeightLow:
		return 0.75
	default:
		return 0.55
	}
}
