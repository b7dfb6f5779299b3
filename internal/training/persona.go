package training

import (
	"context"
	"encoding/json"
	"image"
	"math"
	"sort"

	"thumbforge/internal/core"
)

// CropSize is the side of a stored aligned face crop.
const CropSize = 256

// faceCrop is the aligned crop of the main face of one training image.
type faceCrop struct {
	img   *image.RGBA
	score float64
	index int
}

// persona keeps the aligned crops of the images' largest faces, best first; the best is
// the portrait. Images without a face were skipped; none at all is a permanent failure.
func (t *Trainer) persona(ctx context.Context, m *core.CustomModel, found []faceCrop, res *core.TrainingResult) error {
	if err := t.cfg.Service.TrainingStage(ctx, m.ID, core.StageAnalyzing, 70); err != nil {
		return err
	}
	if len(found) == 0 {
		return &permanent{reason: "No face could be detected in any training image."}
	}
	if err := t.stage(ctx, m.ID, core.StageTraining, 75); err != nil {
		return err
	}
	// Best first; ties keep the images' order so equal inputs give equal records.
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	var pp core.PersonaParams
	blobs := t.cfg.Service.Blobs()
	for i, c := range found {
		key := core.FaceKey(m.ID, i)
		if err := putJPEG(ctx, blobs, key, c.img); err != nil {
			return err
		}
		pp.FaceKeys = append(pp.FaceKeys, key)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	b, err := json.Marshal(pp)
	if err != nil {
		return err
	}
	res.Params, res.PortraitKey = string(b), pp.FaceKeys[0]
	return t.stage(ctx, m.ID, core.StageTraining, 95)
}

// cropFace crops the largest face of img, or returns nil when it has none. The score
// favours confident detections of faces with enough pixels to fill a crop.
func (t *Trainer) cropFace(img image.Image, index int) *faceCrop {
	faces := t.cfg.Faces.Detect(img)
	if len(faces) == 0 {
		return nil
	}
	f := faces[0]
	side := math.Sqrt(float64(f.Box.Dx() * f.Box.Dy()))
	resolution := math.Min(1, side/(CropSize*0.6))
	return &faceCrop{img: t.cfg.Crop(img, f, CropSize), score: f.Confidence * resolution, index: index}
}
