package builtin

import (
	"context"
	"image"
	"sync"
	"testing"

	"thumbforge/internal/core"
)

// TestConcurrentRendersAgree: renders sharing the engine's pools (faces, rasterizers)
// from several goroutines give the same pixels as a lone render (run with -race).
func TestConcurrentRendersAgree(t *testing.T) {
	e := newEngine(t)
	jobs := []core.ThumbnailJob{
		{Model: "mdl_3", Format: core.Format16x9, Prompt: "Surfing the biggest ocean waves", Seed: 1},
		{Model: "mdl_4_5", Format: core.Format9x16, Prompt: "spicy fire noodle challenge", Seed: 2},
		{Model: "mdl_2", Format: core.Format1x1, Reference: scene(600, 400, 0.5, 0.5, 0), Seed: 3},
	}
	want := make([]string, len(jobs))
	for i, j := range jobs {
		img, _ := render(t, e, j)
		want[i] = string(img.Pix)
	}
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, j := range jobs {
				img, err := e.Thumbnail(context.Background(), j)
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], string(img.(*image.RGBA).Pix))
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i := range got[g] {
			if got[g][i] != want[i] {
				t.Errorf("goroutine %d job %d: pixels differ from a lone render", g, i)
			}
		}
	}
}
