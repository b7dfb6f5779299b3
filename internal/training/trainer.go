// Package training turns a persona's or style's images into what generation uses: a
// style learns colour statistics, a palette and contrast/texture measures, and gets a
// sample thumbnail as its portrait; a persona keeps aligned crops of its faces, the best
// one as its portrait. It runs inside queue jobs and reports stages and progress.
package training

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
	"thumbforge/internal/memory"
)

// Config wires a Trainer.
type Config struct {
	Service *core.Service
	// Images decodes stored images and fetches v2 inputs (core.ImageLoader plus Decode).
	Images Images
	Engine core.Engine
	Faces  core.FaceDetector
	// Crop cuts an aligned face crop (faces.AlignedCrop).
	Crop func(img image.Image, f core.Face, size int) *image.RGBA
	// StageDelay slows each stage down; tests use it to kill a server mid-training
	// (env THUMBFORGE_TRAINING_DELAY). Zero in production.
	StageDelay time.Duration
	Logger     *slog.Logger
}

// Images is what training needs of the inputs package.
type Images interface {
	core.ImageLoader
	Decode(ctx context.Context, data []byte, field string) (image.Image, error)
}

// Trainer trains custom models; it implements jobs.Handler.
type Trainer struct {
	cfg Config
}

// New checks cfg and returns a Trainer.
func New(cfg Config) (*Trainer, error) {
	if cfg.Service == nil || cfg.Images == nil || cfg.Engine == nil || cfg.Faces == nil || cfg.Crop == nil {
		return nil, errors.New("training: service, images, engine, faces and crop are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Trainer{cfg: cfg}, nil
}

// permanent is a failure that no retry can fix; its message is public.
type permanent struct {
	reason string
	err    error
}

func (p *permanent) Error() string { return p.reason }
func (p *permanent) Unwrap() error { return p.err }

// Train runs one training job. A permanent failure (unusable images, no face) ends the
// record in failed and is not retried; other errors are returned for the queue to retry,
// and on the last attempt they fail the record too.
func (t *Trainer) Train(ctx context.Context, id uuid.UUID, lastAttempt bool) error {
	svc := t.cfg.Service
	m, err := svc.TrainingRecord(ctx, id)
	if errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrTrainingFinished) {
		return nil // deleted, or finished by an earlier run
	}
	if err != nil {
		return err
	}
	res, err := t.train(ctx, m)
	if err == nil {
		svc.Step(core.StepTrainingStored)
		err = svc.CompleteTraining(ctx, id, res)
	}
	var p *permanent
	switch {
	case err == nil, errors.Is(err, core.ErrTrainingFinished):
		return nil
	case errors.As(err, &p):
		t.cfg.Logger.InfoContext(ctx, "training failed", "id", id, "reason", p.reason, "err", p.err)
		return svc.FailTraining(ctx, id, p.reason)
	case lastAttempt:
		t.cfg.Logger.ErrorContext(ctx, "training failed after retries", "id", id, "err", err)
		return svc.FailTraining(ctx, id, "Training failed.")
	}
	return err
}

// train runs the stages and returns what the record keeps. Images are taken one at a
// time: each is decoded, reduced to what training keeps of it (a face crop, colour
// statistics and a small tile), and dropped before the next is decoded.
func (t *Trainer) train(ctx context.Context, m *core.CustomModel) (core.TrainingResult, error) {
	var res core.TrainingResult
	if err := t.stage(ctx, m.ID, core.StageAnalyzing, 5); err != nil {
		return res, err
	}
	var (
		crops []faceCrop
		style styleStats
		err   error
	)
	res.ReferenceKeys, err = t.each(ctx, m, func(i int, img image.Image) error {
		if m.Mode == core.ModePersona {
			if c := t.cropFace(img, i); c != nil {
				crops = append(crops, *c)
			}
			return nil
		}
		style.add(img)
		return nil
	})
	if err != nil {
		return res, err
	}
	t.cfg.Service.Step(core.StepTrainingLoaded)
	if m.Mode == core.ModePersona {
		err = t.persona(ctx, m, crops, &res)
	} else {
		err = t.style(ctx, m, style.params(), &res)
	}
	return res, err
}

// stage records a stage and progress, then waits StageDelay.
func (t *Trainer) stage(ctx context.Context, id uuid.UUID, s core.Stage, progress int) error {
	if err := t.cfg.Service.TrainingStage(ctx, id, s, progress); err != nil {
		return err
	}
	if t.cfg.StageDelay <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(t.cfg.StageDelay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// each calls fn with the record's training images in order, one at a time, each decoded
// in a memory scope of its own that ends when fn returns, and returns the blob keys of
// its reference images. v1 images were stored at creation; v2 inputs are fetched now and
// stored as references.
func (t *Trainer) each(ctx context.Context, m *core.CustomModel, fn func(int, image.Image) error) ([]string, error) {
	var src core.TrainingSource
	if err := json.Unmarshal([]byte(m.Source), &src); err != nil {
		return nil, &permanent{reason: "The training data record is unreadable.", err: err}
	}
	blobs := t.cfg.Service.Blobs()
	n := len(src.ImageKeys) + len(src.Refs)
	if n == 0 {
		return nil, &permanent{reason: "The record has no training images."}
	}
	var refs []string
	progress := func(i int) int { return 5 + 35*(i+1)/max(1, n) }
	one := func(i int, load func(context.Context) (image.Image, string, error)) error {
		ictx, end := memory.WithScope(ctx)
		defer end()
		img, ref, err := load(ictx)
		if err != nil {
			return err
		}
		refs = append(refs, ref)
		if err := fn(i, img); err != nil {
			return err
		}
		return t.cfg.Service.TrainingStage(ctx, m.ID, core.StageAnalyzing, progress(i))
	}
	for i, key := range src.ImageKeys {
		err := one(i, func(ctx context.Context) (image.Image, string, error) {
			data, err := blobs.Get(ctx, key)
			if err != nil {
				return nil, "", lostInput(err, "read training image")
			}
			img, err := t.cfg.Images.Decode(ctx, data, "training_data")
			return img, key, decodeFailure(err, "A training image could not be read.")
		})
		if err != nil {
			return nil, err
		}
	}
	for i, r := range src.Refs {
		err := one(len(src.ImageKeys)+i, func(ctx context.Context) (image.Image, string, error) {
			ref := core.ImageRef{Field: r.Field, URL: r.URL}
			if r.DataKey != "" {
				data, err := blobs.Get(ctx, r.DataKey)
				if err != nil {
					return nil, "", lostInput(err, "read saved input")
				}
				ref.Data = string(data)
			}
			img, err := t.cfg.Images.Load(ctx, ref)
			if err != nil {
				if e := core.AsError(err); e != nil && (e.Code == core.CodeInvalidImage || e.Code == core.CodeImageTooLarge) {
					return nil, "", &permanent{reason: fmt.Sprintf("%s: %s", r.Field, e.Message), err: err}
				}
				return nil, "", err
			}
			key := core.RefKey(m.ID, i)
			return img, key, putJPEG(ctx, blobs, key, shrink(img, 1280))
		})
		if err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// decodeFailure makes an image that cannot be decoded a permanent failure; other errors
// (memory not free now, the job's context ending) are retried.
func decodeFailure(err error, reason string) error {
	if e := core.AsError(err); e != nil && (e.Code == core.CodeInvalidImage || e.Code == core.CodeImageTooLarge) {
		return &permanent{reason: reason, err: err}
	}
	return err
}

// lostInput classifies a failed read of a saved input: gone for good (a permanent failure)
// or a passing store error, retried.
func lostInput(err error, what string) error {
	if errors.Is(err, core.ErrNotFound) {
		return &permanent{reason: "The training images were lost.", err: err}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// putJPEG encodes img and stores it under key.
func putJPEG(ctx context.Context, blobs core.Blobs, key string, img image.Image) error {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	if err := blobs.Put(ctx, key, buf.Bytes(), "image/jpeg"); err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}
