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

// style learns the images' colour statistics, palette, contrast and texture, then renders
// a sample thumbnail in the style as its portrait.
func (t *Trainer) style(ctx context.Context, m *core.CustomModel, imgs []image.Image, res *core.TrainingResult) error {
	sp := learnStyle(imgs)
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
	key := fmt.Sprintf("custom/%s/portrait.jpg", m.ID)
	if err := putJPEG(ctx, t.cfg.Service.Blobs(), key, portrait); err != nil {
		return err
	}
	res.Params, res.PortraitKey = string(b), key
	return t.stage(ctx, m.ID, core.StageTraining, 95)
}

// learnStyle pools the images' statistics, each image weighing the same.
func learnStyle(imgs []image.Image) core.StyleParams {
	var sp core.StyleParams
	var sumSq [3]float64
	n := float64(len(imgs))
	for _, img := range imgs {
		mean, std := builtin.LabStats(img)
		for i := range 3 {
			sp.LabMean[i] += mean[i] / n
			sumSq[i] += (std[i]*std[i] + mean[i]*mean[i]) / n
		}
		small := shrink(img, 128)
		c, tx := contrastTexture(small)
		sp.Contrast += c / n
		sp.Texture += tx / n
	}
	for i := range 3 {
		// Pooled deviation: within-image spread plus the spread between image means.
		sp.LabStd[i] = math.Sqrt(math.Max(0, sumSq[i]-sp.LabMean[i]*sp.LabMean[i]))
	}
	sp.Palette = builtin.Palette(mosaic(imgs, 96), PaletteSize)
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
