// Package gallery renders a fixed, varied set of thumbnails and edits with the builtin
// engine, so people can look at what it produces (thumbforge gallery --out DIR).
package gallery

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// Render writes the gallery's JPEG files (quality 88) into outDir and returns their paths.
func Render(ctx context.Context, eng *builtin.Engine, outDir string) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	photo := Scene(1600, 1000, 1)
	support := Scene(800, 600, 2)
	face := Face(256)
	style := &core.StyleParams{LabMean: [3]float64{55, 25, -35}, LabStd: [3]float64{22, 18, 20},
		Palette: []color.RGBA{{20, 10, 60, 255}, {120, 40, 200, 255}, {255, 90, 200, 255}}}
	jobs := []struct {
		name string
		job  core.ThumbnailJob
	}{
		{"text-ocean-16x9", core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves in Hawaii"}},
		{"text-money-9x16", core.ThumbnailJob{Model: "mdl_4", Format: core.Format9x16, Prompt: "How I made $10k passive income investing in stocks"}},
		{"text-tech-1x1", core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format1x1, Prompt: "Learn Golang concurrency in 10 minutes"}},
		{"text-fire-16x9", core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format16x9, Prompt: "Eating the hottest spicy noodles challenge"}},
		{"text-space-16x9", core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: "What NASA found on Mars will shock you"}},
		{"text-unknown-16x9", core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "Quilting patterns for grandmothers"}},
		{"text-horror-9x16", core.ThumbnailJob{Model: "mdl_3", Format: core.Format9x16, Prompt: "The haunted house nobody escapes"}},
		{"image-mdl2-low-16x9", core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: photo, Weight: core.WeightLow}},
		{"image-mdl2-high-16x9", core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: photo, Weight: core.WeightHigh}},
		{"image-support-16x9", core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Reference: photo, Support: support, Prompt: "Travel vlog: 7 days in Japan"}},
		{"persona-9x16", core.ThumbnailJob{Model: "mdl_4_5", Format: core.Format9x16, Prompt: "My fitness transformation in 90 days", Persona: &core.PersonaAssets{Faces: []image.Image{face}}}},
		{"persona-support-16x9", core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: "I tested the new iPhone camera", Support: support, Persona: &core.PersonaAssets{Faces: []image.Image{face}}}},
		{"style-1x1", core.ThumbnailJob{Model: "mdl_3", Format: core.Format1x1, Prompt: "Lo-fi beats to study to", Style: style}},
	}
	var paths []string
	for i, j := range jobs {
		j.job.Seed = uint64(i + 1)
		img, err := eng.Thumbnail(ctx, j.job)
		if err != nil {
			return paths, fmt.Errorf("gallery %s: %w", j.name, err)
		}
		p, err := save(outDir, j.name, img)
		if err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	edited, err := eng.Edit(ctx, core.EditJob{Image: photo, Instruction: `make it much brighter, add text "BEFORE & AFTER" and add a vignette`})
	if err != nil {
		return paths, fmt.Errorf("gallery edit: %w", err)
	}
	p, err := save(outDir, "edit", edited)
	if err != nil {
		return paths, err
	}
	return append(paths, p), nil
}

func save(dir, name string, img image.Image) (string, error) {
	p := filepath.Join(dir, name+".jpg")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 88}); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}

// Scene draws a procedural landscape-like photo (sky, sun, hills, a detailed subject) so
// the gallery and tests need no image files; variant changes its colours and layout.
func Scene(w, h, variant int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fv := float64(variant)
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			r := 60 + 120*fy + 40*math.Sin(fv)
			g := 110 + 80*fy*fv/2
			b := 220 - 90*fy
			hill := 0.62 + 0.08*math.Sin(fx*6+fv) + 0.04*math.Sin(fx*17)
			if fy > hill {
				r, g, b = 40+30*fv, 120+40*math.Sin(fx*40), 50
			}
			// A textured subject left of centre: the salient region.
			cx, cy := 0.38+0.2*(fv-1), 0.5
			if d := math.Hypot((fx-cx)*float64(w)/float64(h), fy-cy); d < 0.2 {
				t := math.Sin(fx*120) * math.Cos(fy*90)
				r, g, b = 230+25*t, 120+90*t, 40+30*t
			}
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(clampf(r)), uint8(clampf(g)), uint8(clampf(b)), 255
		}
	}
	return img
}

// Face draws a simple procedural face crop (skin oval, eyes, mouth) of size s x s.
func Face(s int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, s, s))
	fs := float64(s)
	for y := range s {
		for x := range s {
			fx, fy := float64(x)/fs-0.5, float64(y)/fs-0.5
			r, g, b := 70.0, 90.0, 120.0
			if fx*fx/0.14+fy*fy/0.2 < 1 {
				r, g, b = 225, 172, 140
				if fy < -0.28 {
					r, g, b = 60, 40, 30 // hair
				}
				for _, ex := range []float64{-0.14, 0.14} {
					if math.Hypot(fx-ex, fy+0.06) < 0.05 {
						r, g, b = 30, 30, 40
					}
				}
				if math.Abs(fx) < 0.14 && math.Abs(fy-0.2) < 0.025 {
					r, g, b = 170, 40, 50
				}
			}
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(r), uint8(g), uint8(b), 255
		}
	}
	return img
}

func clampf(v float64) float64 { return math.Max(0, math.Min(255, v)) }
