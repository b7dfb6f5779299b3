package builtin

import (
	"image"
	"testing"

	"thumbforge/internal/core"
)

// TestPromptUseByModel: every model uses the prompt of a text job (v1's mdl-1 and mdl-2
// map to mdl_2 and are text endpoints); only mdl_2 with a reference ignores it.
func TestPromptUseByModel(t *testing.T) {
	e := newEngine(t)
	ref := scene(800, 600, 0.5, 0.5, 0)
	tests := []struct {
		model    string
		ref      image.Image
		usesText bool
	}{
		{"mdl_2", nil, true},
		{"mdl_2", ref, false},
		{"mdl_3", nil, true},
		{"mdl_3", ref, true},
		{"mdl_4", nil, true},
		{"mdl_4_5", ref, true},
	}
	for _, tt := range tests {
		job := core.ThumbnailJob{Model: tt.model, Format: core.Format16x9, Reference: tt.ref, Prompt: "huge fire sale", Seed: 1}
		a, ia := render(t, e, job)
		job.Prompt = "calm ocean morning"
		b, _ := render(t, e, job)
		differ := string(a.Pix) != string(b.Pix)
		if differ != tt.usesText {
			t.Errorf("%s ref=%v: outputs differ by prompt = %v, want %v", tt.model, tt.ref != nil, differ, tt.usesText)
		}
		if hasText := ia.textMask != nil; hasText != tt.usesText {
			t.Errorf("%s ref=%v: headline drawn = %v, want %v", tt.model, tt.ref != nil, hasText, tt.usesText)
		}
	}
}
