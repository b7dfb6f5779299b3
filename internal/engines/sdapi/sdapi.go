// Package sdapi drives servers of the AUTOMATIC1111 "sdapi" protocol as a generative
// engine: AUTOMATIC1111 and Forge (started with --api), SD.Next, and stable-diffusion.cpp's
// sd-server, which serves the same /sdapi/v1 routes. One synchronous call per picture:
// txt2img for text, img2img with init_images for a reference (denoising_strength from
// the image weight) and for edits (mask, white = repaint).
package sdapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// Kind is the sdapi engine (--engine sdapi). These servers generate one picture at a
// time (A1111's queue lock, sd.cpp's mutex): one request per URL by default.
func Kind() engines.Kind {
	return engines.Kind{Name: "sdapi", DefaultConcurrency: 1, New: New}
}

// Sampling settings sent with every generation; the tier sets the steps.
const (
	sampler   = "DPM++ 2M" // A1111's name; sd.cpp maps it too
	scheduler = "karras"
	cfgScale  = 6.5
)

// Backend is one sdapi server.
type Backend struct {
	b          *backend
	checkpoint string // --engine-model: sd_model_checkpoint override, "" for the server's
}

var _ engines.Backend = (*Backend)(nil)
var _ engines.Checker = (*Backend)(nil)

// New builds the backend of one URL. --engine-key, when set, is "user:pass" for HTTP
// Basic auth (A1111's --api-auth).
func New(cfg engines.BackendConfig) (engines.Backend, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("sdapi: bad URL: %w", err)
	}
	var user, pass string
	if cfg.Key != "" {
		var ok bool
		if user, pass, ok = strings.Cut(cfg.Key, ":"); !ok || user == "" {
			return nil, fmt.Errorf("sdapi: --engine-key must be user:pass (HTTP Basic, as --api-auth takes it)")
		}
	}
	cfg = cfg.WithDefaults(2)
	return &Backend{
		b:          &backend{base: u, user: user, pass: pass, hc: cfg.Client, log: cfg.Logger, watchEvery: time.Second},
		checkpoint: cfg.Model,
	}, nil
}

// Caps: text, reference, edit and mask. Persona, style, support and face swap run on the
// builtin (ControlNet and ReActor extensions vary too much between installs to assume).
func (a *Backend) Caps() engines.Caps {
	return engines.CapText | engines.CapReference | engines.CapEdit | engines.CapMask
}

// Size is an SDXL training bucket of the format's orientation.
func (a *Backend) Size(f core.Format) (int, int) { return engines.SDXLSize(f) }

// Ping reads /sdapi/v1/options.
func (a *Backend) Ping(ctx context.Context) error { return a.b.ping(ctx) }

// Generate sends txt2img or img2img and returns images[0]'s bytes.
func (a *Backend) Generate(ctx context.Context, req *engines.Request) ([]byte, error) {
	body := map[string]any{
		"prompt": req.Prompt, "negative_prompt": req.Negative,
		"seed": req.Seed & 0x7fffffff, "steps": req.Tier.Steps, "cfg_scale": cfgScale,
		"width": req.Width, "height": req.Height, "sampler_name": sampler, "scheduler": scheduler,
		"batch_size": 1, "n_iter": 1, "send_images": true, "save_images": false,
		// our own task id: a cancelled request interrupts the server only if it runs ours
		"force_task_id": "thumbforge-" + uuid.NewString(),
	}
	if a.checkpoint != "" {
		// kept loaded afterwards: restoring would reload the model on every request
		body["override_settings"] = map[string]any{"sd_model_checkpoint": a.checkpoint}
		body["override_settings_restore_afterwards"] = false
	}
	op := "txt2img"
	if req.Image != nil {
		op = "img2img"
		init, err := b64PNG(req.Image)
		if err != nil {
			return nil, err
		}
		body["init_images"] = []string{init}
		body["resize_mode"] = 0 // the engine sent it at the exact size
		body["denoising_strength"] = strength(req)
		if req.Mask != nil {
			mask, err := b64PNG(req.Mask)
			if err != nil {
				return nil, err
			}
			body["mask"] = mask         // white = repaint
			body["inpainting_fill"] = 1 // start the masked area from the original
			body["inpaint_full_res"] = false
			body["mask_blur"] = 4
		}
	}
	return a.b.generate(ctx, op, body)
}

// strength is denoising_strength: the request's (from image_weight) for a reference; for
// an edit, the low-weight strength inside a mask (the engine puts the outside back) and
// the medium one for a whole-picture edit.
func strength(req *engines.Request) float64 {
	switch {
	case req.Op == engines.OpEdit && req.Mask != nil:
		return engines.Strength(core.WeightLow)
	case req.Op == engines.OpEdit || req.Strength <= 0:
		return engines.Strength(core.WeightMedium)
	}
	return req.Strength
}

func b64PNG(img image.Image) (string, error) {
	data, err := engines.EncodePNG(img)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// Check says, for `thumbforge engine check`, whether the server answers (and the key is
// right), which checkpoint it runs, whether the override exists, and whether cancelled
// work can be interrupted there.
func (a *Backend) Check(ctx context.Context) []engines.Check {
	var opts struct {
		Checkpoint string `json:"sd_model_checkpoint"`
	}
	if err := a.b.call(ctx, http.MethodGet, "/sdapi/v1/options", nil, &opts); err != nil {
		return []engines.Check{{Name: "reachable", Detail: err.Error()}}
	}
	out := []engines.Check{{Name: "reachable", OK: true, Detail: "loaded checkpoint: " + opts.Checkpoint}}
	if a.checkpoint != "" {
		out = append(out, a.checkModel(ctx))
	}
	c := engines.Check{Name: "cancel", OK: true, Detail: "cancelled requests interrupt the server's job (POST /internal/progress answers)"}
	if err := a.b.call(ctx, http.MethodPost, "/internal/progress", map[string]any{"id_task": "thumbforge-check", "id_live_preview": -1}, nil); err != nil {
		c.Detail = "this server cannot tell its task (sd.cpp?): a cancelled request only closes its connection, the job runs on"
	}
	return append(out, c)
}

// checkModel looks for the override among /sdapi/v1/sd-models.
func (a *Backend) checkModel(ctx context.Context) engines.Check {
	c := engines.Check{Name: "checkpoint " + a.checkpoint}
	var models []struct {
		Title     string `json:"title"`
		ModelName string `json:"model_name"`
	}
	if err := a.b.call(ctx, http.MethodGet, "/sdapi/v1/sd-models", nil, &models); err != nil {
		c.Detail = "cannot list the server's models: " + err.Error()
		return c
	}
	var names []string
	for _, m := range models {
		if m.Title == a.checkpoint || m.ModelName == a.checkpoint || strings.HasPrefix(m.Title, a.checkpoint+" ") {
			c.OK, c.Detail = true, "found"
			return c
		}
		names = append(names, m.Title)
	}
	c.Detail = "not among the server's models: " + clip(strings.Join(names, ", "))
	return c
}
