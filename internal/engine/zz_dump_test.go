package engine

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"thumbforge/internal/core"
)

func dumpJobs() map[string]core.ThumbnailJob {
	ref := scene(2000, 1500, 0.4, 0.5, 0)
	sup := scene(600, 400, 0.3, 0.6, 80)
	face := scene(200, 200, 0.5, 0.5, 120)
	m := map[string]core.ThumbnailJob{}
	prompts := []string{"Surfing the biggest ocean waves in Hawaii", "spicy fire noodle challenge", "passive income stocks", "golang code review", "nasa mars rocket", "gaming boss battle", "pizza recipe", "forest hiking", "gym workout abs", "guitar music beats", "travel japan summer", "haunted horror night", "love fashion beauty", "math school lesson", "quilting grandma"}
	for i, p := range prompts {
		f := core.Formats[i%3]
		m[fmt.Sprintf("t%02d", i)] = core.ThumbnailJob{Model: "mdl_3", Format: f, Prompt: p, Seed: uint64(i)}
		m[fmt.Sprintf("v%02d", i)] = core.ThumbnailJob{Model: "mdl_4_5", Format: core.Formats[(i+1)%3], Prompt: p, Seed: uint64(i)}
	}
	m["img2"] = core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: ref, Weight: core.WeightMedium, Seed: 1}
	m["img2low"] = core.ThumbnailJob{Model: "mdl_2", Format: core.Format9x16, Reference: ref, Weight: core.WeightLow, Seed: 1}
	m["img4"] = core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Reference: ref, Support: sup, Prompt: "travel vlog japan", Seed: 1}
	m["pers"] = core.ThumbnailJob{Model: "mdl_4", Format: core.Format1x1, Support: sup, Persona: &core.PersonaAssets{Faces: []image.Image{face}}, Prompt: "my gym routine", Seed: 1}
	m["style"] = core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "lofi beats", Style: &core.StyleParams{LabMean: [3]float64{55, 25, -35}, LabStd: [3]float64{22, 18, 20}}, Seed: 1}
	return m
}

func TestZZDump(t *testing.T) {
	out, cmp := os.Getenv("DUMP"), os.Getenv("CMP")
	if out == "" && cmp == "" {
		t.Skip()
	}
	e := newEngine(t)
	for name, job := range dumpJobs() {
		img, _ := render(t, e, job)
		if out != "" {
			os.MkdirAll(out, 0o755)
			f, _ := os.Create(filepath.Join(out, name+".png"))
			png.Encode(f, img)
			f.Close()
		}
		if cmp != "" {
			f, err := os.Open(filepath.Join(cmp, name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			old, _ := png.Decode(f)
			f.Close()
			o := toRGBA(old)
			s, mx := 0.0, 0.0
			for i := range o.Pix {
				d := math.Abs(float64(o.Pix[i]) - float64(img.Pix[i]))
				s += d
				mx = max(mx, d)
			}
			t.Logf("%-8s mean %.2f", name, s/float64(len(o.Pix)))
		}
	}
}
