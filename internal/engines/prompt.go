package engines

import (
	"fmt"
	"strings"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// TextMode says who draws a thumbnail's headline (--engine-text).
type TextMode string

// The text modes.
const (
	// TextOverlay: the model draws a scene without text; the builtin lays the headline
	// over it (contrast at least 4.5:1, never clipped).
	TextOverlay TextMode = "overlay"
	// TextModel: the prompt asks the model to draw the headline itself.
	TextModel TextMode = "model"
)

// promptPlan is what a thumbnail prompt is built from.
type promptPlan struct {
	job  core.ThumbnailJob
	caps Caps // what the backend does itself
	mode TextMode
	// crop is true when the backend's picture has another aspect than the output, so
	// the subject must stay inside the band that survives the crop.
	crop bool
}

// build returns the prompt and negative prompt. The user's prompt and the special
// instructions are kept verbatim (mdl_2 with a reference ignores the prompt, as the API
// says); everything else is guidance around them.
func (p promptPlan) build() (prompt, negative string) {
	job := p.job
	var parts []string
	add := func(s string) {
		t := strings.TrimSpace(s)
		if t == "" {
			return
		}
		if !strings.ContainsAny(t[len(t)-1:], ".!?") {
			s += "." // a full stop after it, so guidance does not run into the words
		}
		parts = append(parts, s) // as given: the user's words stay verbatim
	}
	restyle := job.Reference != nil && TierOf(job.Model).Level == 1
	if !restyle {
		add(job.Prompt)
	}
	for _, in := range job.Instructions {
		add(in)
	}
	switch {
	case restyle:
		add("Recreate the reference image as a striking, polished video thumbnail.")
	case job.Reference != nil:
		add("Use the reference image as the starting point.")
	}
	if job.Persona != nil && len(job.Persona.Faces) > 0 {
		if p.caps.Has(CapPersona) {
			add("Feature the person shown in the face photos, keeping their face recognisable.")
		} else {
			add("Show one person with their face clearly visible, facing the camera.")
		}
	}
	if job.Style != nil {
		if p.caps.Has(CapStyle) && len(job.StyleImages) > 0 {
			add("Paint it in the visual style of the style reference images.")
		}
		add(paletteWords(job.Style))
	}
	if job.Support != nil && p.caps.Has(CapSupport) && TierOf(job.Model).Level >= 3 {
		add("Include the subject of the support image.")
	}
	add("Video thumbnail: bold composition, one clear focal subject, vivid colours, high contrast.")
	if p.crop {
		add(fmt.Sprintf("Keep the subject inside a centred %s band.", job.Format))
	}
	words := builtin.Headline(job)
	switch {
	case p.mode == TextModel && len(words) > 0:
		add(fmt.Sprintf("Include the headline %q in large, bold, legible letters, fully inside the picture.", strings.Join(words, " ")))
		negative = "watermark, logo, signature, blurry, low quality, deformed"
	default:
		add("Leave calm space beside the subject for a headline. No text, letters, words, logos or watermarks anywhere.")
		negative = "text, letters, words, caption, watermark, logo, signature, blurry, low quality, deformed"
	}
	return strings.Join(parts, " "), negative
}

// paletteWords describes a style's palette in colour names.
func paletteWords(st *core.StyleParams) string {
	var names []string
	seen := map[string]bool{}
	for _, c := range st.Palette {
		if n := builtin.ColourName(c); !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "Colour palette: " + strings.Join(names, ", ") + "."
}
