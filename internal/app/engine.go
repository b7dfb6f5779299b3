package app

import (
	"bytes"
	"context"
	"errors"
	"image"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/engines/registry"
	"thumbforge/internal/faces"
	"thumbforge/internal/memory"
)

// openEngine returns the image engine and face swapper the service uses: the builtin
// ones, or a pool of generative backends with the builtin behind it for what they
// cannot do. Training keeps the builtin either way (its portraits are previews).
func (a *App) openEngine(eng *builtin.Engine, detector *faces.Detector) (core.Engine, core.FaceSwapper, error) {
	swapper := faces.NewSwapper(detector)
	cfg := a.cfg.Engine
	if !cfg.Generative() {
		return eng, swapper, nil
	}
	gen, err := engines.New(engines.Options{
		Config: cfg, Kind: registry.Kinds()[cfg.Kind], Builtin: eng, Swapper: swapper, Faces: detector,
		Logger: a.log, Metrics: a.Metrics.Registry, Decode: a.decodePicture,
	})
	if err != nil {
		return nil, nil, err
	}
	a.gen = gen
	a.closers = append(a.closers, gen.Close)
	a.log.Info("image engine", "engine", cfg.Kind, "backends", len(cfg.URLs), "model", cfg.Model,
		"concurrency", cfg.Concurrency, "text", cfg.Text, "backend_does", gen.Caps().String())
	return gen, gen, nil
}

// engineReady pings the engine's backends: the service is ready while one answers.
func (a *App) engineReady(ctx context.Context) error {
	if a.gen == nil {
		return nil
	}
	for _, b := range a.gen.Health(ctx) {
		if b.Healthy {
			return nil
		}
	}
	return errors.New("engine: no backend answers")
}

// readyDetails is what /readyz shows beyond its status: each backend's health.
func (a *App) readyDetails(context.Context) map[string]any {
	if a.gen == nil {
		return nil
	}
	return map[string]any{"engine": map[string]any{"name": a.cfg.Engine.Kind, "backends": a.gen.Snapshot()}}
}

// picturePixelBytes is what decoding a backend's picture is counted at per pixel: 16-bit
// PNGs and lossless WebP take 8 bytes a pixel, a JPEG 3.
const picturePixelBytes = 8

// decodePicture decodes a backend's picture under the memory budget: the bytes its header
// announces are reserved first (waiting in line) and kept until the request ends, since
// the picture lives until the output is rendered.
func (a *App) decodePicture(ctx context.Context, data []byte) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return engines.DecodePicture(ctx, data) // says why, as a backend failure
	}
	r, err := a.Budget.Reserve(ctx, picturePixelBytes*int64(cfg.Width)*int64(cfg.Height))
	switch {
	case errors.Is(err, memory.ErrTooLarge):
		return nil, engines.Failed("the %dx%d picture would exceed a share of the memory budget", cfg.Width, cfg.Height)
	case err != nil:
		return nil, err
	}
	img, err := engines.DecodePicture(ctx, data)
	if err != nil {
		r.Release()
		return nil, err
	}
	memory.Hold(ctx, r)
	return img, nil
}
