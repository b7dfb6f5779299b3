package app

import (
	"context"
	"fmt"
	"time"

	"thumbforge/internal/api"
	"thumbforge/internal/console"
	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
)

// console builds the web console with the server's prices and input limits, letting its
// pages show images from wherever output links point (the public URL, an S3 endpoint).
func (a *App) console(ctx context.Context) (*console.Handler, error) {
	probe, err := a.Blobs.URL(ctx, "outputs/console-probe.jpg", a.cfg.Now().Add(time.Hour))
	if err != nil {
		return nil, fmt.Errorf("console: output link origin: %w", err)
	}
	pages, err := console.New(console.Config{
		Prices: a.cfg.Prices,
		Limits: console.Limits{
			MaxImageBytes: inputs.DefaultMaxBytes, MaxPixels: inputs.DefaultMaxPixels, MaxBodyBytes: api.MaxBodyBytes,
			MaxPrompt: api.MaxPrompt, MaxName: core.MaxNameLen, MaxInstructions: core.MaxInstructions,
			TrainingImages: core.V2TrainingImages, ReservedNames: core.ReservedNames(),
		},
		ImageOrigins: []string{probe},
	})
	if err != nil {
		return nil, err
	}
	return pages, nil
}
