package builtin

import (
	"context"
	"image"
	"testing"

	"thumbforge/internal/core"
)

func TestParseInstruction(t *testing.T) {
	tests := []struct {
		in   string
		want []OpKind
		amt  float64 // amount of the first op, when non-zero
	}{
		{"make it brighter", []OpKind{OpBrightness}, 1},
		{"much darker please", []OpKind{OpBrightness}, -2},
		{"slightly more contrast", []OpKind{OpContrast}, 0.5},
		{"reduce the contrast", []OpKind{OpContrast}, -1},
		{"black and white", []OpKind{OpGrayscale}, 0},
		{"desaturate", []OpKind{OpSaturation}, -1},
		{"more vibrant colours", []OpKind{OpSaturation}, 1},
		{"warmer tones", []OpKind{OpTemperature}, 1},
		{"cooler", []OpKind{OpTemperature}, -1},
		{"blur the background", []OpKind{OpBlurBackground}, 0},
		{"change the background colour to light blue", []OpKind{OpBackgroundColor}, 0},
		{"zoom in", []OpKind{OpZoom}, 1.3},
		{"crop to centre", []OpKind{OpZoom}, 0},
		{"add a vignette", []OpKind{OpVignette}, 0},
		{"sharpen", []OpKind{OpSharpen}, 0},
		{`make it brighter, add text "NEW" and add a vignette`, []OpKind{OpBrightness, OpAddText, OpVignette}, 1},
	}
	for _, tt := range tests {
		ops, err := ParseInstruction(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if len(ops) != len(tt.want) {
			t.Errorf("%q: got %+v", tt.in, ops)
			continue
		}
		for i := range ops {
			if ops[i].Kind != tt.want[i] {
				t.Errorf("%q: op %d is %s, want %s", tt.in, i, ops[i].Kind, tt.want[i])
			}
		}
		if tt.amt != 0 && ops[0].Amount != tt.amt {
			t.Errorf("%q: amount %v, want %v", tt.in, ops[0].Amount, tt.amt)
		}
	}
	ops, _ := ParseInstruction(`add text "Hello World"`)
	if ops[0].Text != "Hello World" {
		t.Errorf("text %q", ops[0].Text)
	}
	if _, err := ParseInstruction("make me a sandwich"); core.CodeOf(err) != core.CodeGenerationRejected {
		t.Errorf("unknown instruction: %v", err)
	}
}

func FuzzParseInstruction(f *testing.F) {
	for _, s := range []string{"brighter", `add text "x" and zoom`, "", `"""`, "black and white, then sharpen"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := ParseInstruction(s)
		if err == nil && len(ops) == 0 {
			t.Fatal("no ops and no error")
		}
	})
}

func TestEditEffectsAndMask(t *testing.T) {
	e := newEngine(t)
	src := scene(800, 600, 0.5, 0.5, 0)
	meanL := func(img image.Image, r image.Rectangle) float64 {
		m := toRGBA(img)
		s, n := 0.0, 0.0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				p := m.Pix[m.PixOffset(x, y):]
				s, n = s+relLuminance(p[0], p[1], p[2]), n+1
			}
		}
		return s / n
	}
	all := src.Rect
	out, err := e.Edit(context.Background(), core.EditJob{Image: src, Instruction: "brighter"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Bounds() != src.Bounds() || meanL(out, all) <= meanL(src, all) {
		t.Fatal("brighter did not brighten or changed size")
	}
	// Mask: left half white: only the left half changes.
	mask := image.NewRGBA(image.Rect(0, 0, 80, 60))
	for y := range 60 {
		for x := range 40 {
			copy(mask.Pix[mask.PixOffset(x, y):], []uint8{255, 255, 255, 255})
		}
	}
	out, _ = e.Edit(context.Background(), core.EditJob{Image: src, Mask: mask, Instruction: "much darker"})
	left, right := image.Rect(0, 0, 390, 600), image.Rect(410, 0, 800, 600)
	if meanL(out, left) >= meanL(src, left)*0.9 || abs(meanL(out, right)-meanL(src, right)) > 0.002 {
		t.Fatal("mask not honoured")
	}
	out, _ = e.Edit(context.Background(), core.EditJob{Image: src, Instruction: "zoom in", Format: core.Format9x16})
	if out.Bounds() != image.Rect(0, 0, 720, 1280) {
		t.Fatalf("format size %v", out.Bounds())
	}
	big := scene(3000, 1500, 0.5, 0.5, 0)
	out, _ = e.Edit(context.Background(), core.EditJob{Image: big, Instruction: "sharpen"})
	if out.Bounds() != image.Rect(0, 0, 1920, 960) {
		t.Fatalf("cap size %v", out.Bounds())
	}
	if _, err := e.Edit(context.Background(), core.EditJob{Image: src, Instruction: "sing a song"}); core.CodeOf(err) != core.CodeGenerationRejected {
		t.Fatalf("got %v", err)
	}
}
