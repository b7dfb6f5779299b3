package training

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"image"
	"math"

	"golang.org/x/image/draw"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// PaletteSize is how many dominant colours a style keeps.
const PaletteSize = 6

// style renders a sample thumbnail in the learnt style as its portrait.
func (t *Trainer) style(ctx context.Context, m *core.CustomModel, sp core.StyleParams, res *core.TrainingResult) error {
	if err := t.stage(ctx, m.ID, core.StageTraining, 70); err != nil {
		return err
	}
	b, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	h := fnv.New64a()
	h.Write(m.ID[:])
	portrait, err := t.cfg.Engine.Thumbnail(ctx, core.ThumbnailJob{
		Model: "mdl_3", Format: core.Format1x1, Prompt: m.Name, Weight: core.WeightMedium,
		Style: &sp, Seed: h.Sum64(),
	})
	if err != nil {
		return fmt.Errorf("render style portrait: %w", err)
	}
	key := core.PortraitKey(m.ID)
	if err := putJPEG(ctx, t.cfg.Service.Blobs(), key, portrait); err != nil {
		return err
	}
	res.Params, res.PortraitKey = string(b), key
	return t.stage(ctx, m.ID, core.StageTraining, 95)
}

// styleStats is what style training keeps of each image, so that the image itself can be
// dropped: its Lab statistics, contrast and texture, and a small tile for the palette.
type styleStats struct {
	mean, meanSq      [3]float64 // sums over images of the mean and of std²+mean²
	contrast, texture float64
	tiles             []image.Image
}

// tileSide is the side of each image's tile in the palette mosaic.
const tileSide = 96

func (s *styleStats) add(img image.Image) {
	mean, std := builtin.LabStats(img)
	for i := range 3 {
		s.mean[i] += mean[i]
		s.meanSq[i] += std[i]*std[i] + mean[i]*mean[i]
	}
	c, tx := contrastTexture(shrink(img, 128))
	s.contrast += c
	s.texture += tx
	tile := image.NewRGBA(image.Rect(0, 0, tileSide, tileSide))
	draw.ApproxBiLinear.Scale(tile, tile.Bounds(), img, img.Bounds(), draw.Src, nil)
	s.tiles = append(s.tiles, tile)
}

// params pools the images' statistics, each image weighing the same.
func (s *styleStats) params() core.StyleParams {
	var sp core.StyleParams
	n := float64(max(1, len(s.tiles)))
	for i := range 3 {
		sp.LabMean[i] = s.mean[i] / n
		// Pooled deviation: within-image spread plus the spread between image means.
		sp.LabStd[i] = math.Sqrt(math.Max(0, s.meanSq[i]/n-sp.LabMean[i]*sp.LabMean[i]))
	}
	sp.Contrast, sp.Texture = s.contrast/n, s.texture/n
	sp.Palette = builtin.Palette(mosaic(s.tiles, tileSide), PaletteSize)
	return sp
}

// contrastTexture returns the RMS contrast of luminance (0..0.5) and the mean absolute
// luminance gradient (0..1), a measure of how busy the image's texture is.
func contrastTexture(img *image.RGBA) (contrast, texture float64) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return 0, 0
	}
	lum := make([]float64, w*h)
	var sum, sq float64
	for y := range h {
		for x := range w {
			p := img.Pix[y*img.Stride+4*x:]
			v := (0.2126*float64(p[0]) + 0.7152*float64(p[1]) + 0.0722*float64(p[2])) / 255
			lum[y*w+x] = v
			sum += v
			sq += v * v
		}
	}
	total := float64(w * h)
	mean := sum / total
	contrast = math.Sqrt(math.Max(0, sq/total-mean*mean))
	var grad float64
	count := 0
	for y := range h - 1 {
		for x := range w - 1 {
			v := lum[y*w+x]
			grad += math.Abs(lum[y*w+x+1]-v) + math.Abs(lum[(y+1)*w+x]-v)
			count++
		}
	}
	if count > 0 {
		texture = grad / float64(2*count)
	}
	return contrast, texture
}

// mosaic lays the images side by side, each scaled to side x side, so one palette covers
// all of them equally.
func mosaic(imgs []image.Image, side int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, side*len(imgs), side))
	for i, img := range imgs {
		draw.ApproxBiLinear.Scale(out, image.Rect(i*side, 0, (i+1)*side, side), img, img.Bounds(), draw.Src, nil)
	}
	return out
}

// shrink returns img scaled so its longer side is at most maxSide, as RGBA.
func shrink(img image.Image, maxSide int) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if l := max(w, h); l > maxSide {
		w, h = max(1, w*maxSide/l), max(1, h*maxSide/l)
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	return out
}
