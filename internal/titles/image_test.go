package titles

import (
	"context"
	"image"
	"image/color"
	"slices"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

// fixedFaces is a face detector that reports n faces, standing in for the real detector
// (internal/faces) so these tests measure only this package.
type fixedFaces int

func (n fixedFaces) Detect(image.Image) []core.Face {
	faces := make([]core.Face, n)
	for i := range faces {
		faces[i] = core.Face{Box: image.Rect(10*i, 0, 10*i+8, 8), Confidence: 1}
	}
	return faces
}

func solid(c color.Color, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	return img
}

// halves paints the left half a and the right half b.
func halves(a, b color.Color) *image.RGBA {
	img := solid(a, 320, 180)
	for y := 0; y < 180; y++ {
		for x := 160; x < 320; x++ {
			img.Set(x, y, b)
		}
	}
	return img
}

func checker(cell int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 512, 512))
	for y := 0; y < 512; y++ {
		for x := 0; x < 512; x++ {
			if (x/cell+y/cell)%2 == 0 {
				img.Set(x, y, color.White)
			} else {
				img.Set(x, y, color.Black)
			}
		}
	}
	return img
}

func TestMeasureImage(t *testing.T) {
	tests := []struct {
		name    string
		img     image.Image
		colours []string
		mood    string
		text    bool
	}{
		{"red", solid(color.RGBA{220, 20, 30, 255}, 64, 64), []string{"red"}, "Vibrant", false},
		{"teal and black", halves(color.RGBA{0, 150, 140, 255}, color.Black), []string{"black", "teal"}, "Dark", false},
		{"black and white", halves(color.White, color.Black), []string{"black", "white"}, "Dramatic", false},
		{"near black", solid(color.RGBA{20, 20, 25, 255}, 300, 200), []string{"black"}, "Dark", false},
		{"white", solid(color.White, 50, 900), []string{"white"}, "Bright", false},
		{"grey", solid(color.RGBA{128, 128, 128, 255}, 100, 100), []string{"grey"}, "Calm", false},
		{"fine detail", checker(5), []string{"black", "white"}, "Dramatic", true},
		{"orange and blue", halves(color.RGBA{250, 140, 20, 255}, color.RGBA{30, 60, 200, 255}), []string{"blue", "orange"}, "Vibrant", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := measureImage(tt.img, nil)
			got := slices.Clone(f.Colours)
			slices.Sort(got)
			if !slices.Equal(got, tt.colours) {
				t.Errorf("colours %q, want %q", f.Colours, tt.colours)
			}
			if f.Mood != tt.mood {
				t.Errorf("mood %s, want %s (brightness %.2f contrast %.2f saturation %.2f)", f.Mood, tt.mood, f.Brightness, f.Contrast, f.Saturation)
			}
			if f.text() != tt.text {
				t.Errorf("text %v, want %v (edge density %.2f)", f.text(), tt.text, f.EdgeDensity)
			}
			if f.Faces != -1 {
				t.Errorf("faces %d without a detector", f.Faces)
			}
		})
	}
}

func TestImageOnlyTitles(t *testing.T) {
	vocab := templateVocabulary()
	for _, c := range []string{"black", "white", "grey", "red", "orange", "brown", "yellow", "green", "teal", "blue", "purple", "pink", "colour"} {
		vocab[c] = true
	}
	tests := []struct {
		name  string
		img   image.Image
		faces core.FaceDetector
		say   []string
	}{
		{"one face", halves(color.RGBA{0, 150, 140, 255}, color.Black), fixedFaces(1), []string{"one face", "teal", "dark"}},
		{"three faces", solid(color.RGBA{250, 140, 20, 255}, 90, 60), fixedFaces(3), []string{"3 faces", "orange"}},
		{"no faces", solid(color.White, 90, 60), fixedFaces(0), []string{"no faces", "white", "bright", "text-free"}},
		{"no detector", checker(5), nil, []string{"suggest text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Builtin{Faces: tt.faces}
			for _, count := range []int{0, 3, 12} {
				res, err := b.Titles(context.Background(), core.TitleRequest{Image: tt.img, Count: count, Seed: 9})
				if err != nil {
					t.Fatal(err)
				}
				want := count
				if want == 0 {
					want = DefaultCount
				}
				checkTitles(t, "", res, want, "", vocab)
				if !strings.HasPrefix(res.Reasoning, "Titles are based on the image only: ") {
					t.Fatalf("reasoning %q", res.Reasoning)
				}
				for _, s := range tt.say {
					if !strings.Contains(res.Reasoning, s) {
						t.Errorf("reasoning %q does not say %q", res.Reasoning, s)
					}
				}
			}
		})
	}
}

func TestPromptAndImage(t *testing.T) {
	b := &Builtin{Faces: fixedFaces(1)}
	img := solid(color.RGBA{15, 15, 20, 255}, 160, 90)
	prompt := "How to make sourdough bread at home"
	res, err := b.Titles(context.Background(), core.TitleRequest{Prompt: prompt, Image: img, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkTitles(t, prompt, res, DefaultCount, "sourdough bread", templateVocabulary())
	mood := 0
	for _, title := range res.Titles {
		if strings.Contains(title, "Dark") {
			mood++
		}
	}
	if mood != 1 {
		t.Errorf("want one title with the image's mood, got %q", res.Titles)
	}
	if !strings.Contains(res.Reasoning, "how-to") || !strings.Contains(res.Reasoning, "a dark mood") {
		t.Errorf("reasoning %q", res.Reasoning)
	}
}
