package builtin

import (
	"context"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	_ "image/jpeg"

	"thumbforge/internal/core"
	"thumbforge/internal/faces"
)

// grain is a bright picture full of fine detail: the hardest background for a headline.
func grain(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(4, 5))
	for i := range img.Pix {
		img.Pix[i] = uint8(150 + r.IntN(106))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func astronautPhoto(t *testing.T) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "faces", "testdata", "astronaut.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestFinishHeadlineOverPictures: over a generated picture (white, bright grain, a
// photo with a face), in every format, the headline is drawn inside the picture with a
// contrast of at least 4.5:1, and keeps off the face.
func TestFinishHeadlineOverPictures(t *testing.T) {
	det, err := faces.NewDetector()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Faces: det})
	if err != nil {
		t.Fatal(err)
	}
	white := image.NewRGBA(image.Rect(0, 0, 1536, 1024))
	for i := range white.Pix {
		white.Pix[i] = 250
	}
	pictures := map[string]image.Image{"white": white, "grain": grain(1536, 1024), "face": astronautPhoto(t)}
	for name, pic := range pictures {
		for _, f := range core.Formats {
			w, h, _ := f.Size()
			out, subj := e.FitPicture(pic, w, h)
			job := core.ThumbnailJob{Model: "mdl_3", Format: f, Prompt: "Quilting with Grandma Supercalifragilistic tips", Seed: 9}
			info, err := e.finish(context.Background(), out, job, subj, Layers{Headline: true})
			if err != nil {
				t.Fatal(err)
			}
			if info.textMask == nil {
				t.Fatalf("%s %s: no headline", name, f)
			}
			if !info.text.ink.In(out.Rect) {
				t.Errorf("%s %s: headline %v outside the picture", name, f, info.text.ink)
			}
			if r := measuredContrast(out, info); r < 4.5 {
				t.Errorf("%s %s: contrast %.2f < 4.5", name, f, r)
			}
			if name == "face" {
				if !subj.HasFace {
					t.Fatalf("%s: the face was not found", f)
				}
				if f != core.Format1x1 && info.text.ink.Overlaps(subj.Face) {
					t.Errorf("%s: the headline %v covers the face %v", f, info.text.ink, subj.Face)
				}
			}
		}
	}
}

func TestAvoidKeepsHalfTheBox(t *testing.T) {
	text := image.Rect(640, 60, 1216, 660)
	if got := avoid(text, image.Rect(500, 100, 800, 400), core.Format16x9); got.Min.X != 800 || got.Max.X != 1216 {
		t.Errorf("face on the left edge: %v", got)
	}
	if got := avoid(text, image.Rect(600, 100, 1100, 400), core.Format16x9); got != text {
		t.Errorf("a face covering most of the box must leave it as it is: %v", got)
	}
	if got := avoid(text, image.Rect(0, 0, 100, 100), core.Format16x9); got != text {
		t.Errorf("no overlap: %v", got)
	}
	tall := image.Rect(50, 820, 670, 1180)
	if got := avoid(tall, image.Rect(200, 700, 500, 900), core.Format9x16); got.Min.Y != 900 {
		t.Errorf("9:16: %v", got)
	}
}
