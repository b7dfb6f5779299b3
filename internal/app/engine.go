package app

import (
	"context"
	"errors"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/engines/registry"
	"thumbforge/internal/faces"
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
		Logger: a.log, Metrics: a.Metrics.Registry,
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
