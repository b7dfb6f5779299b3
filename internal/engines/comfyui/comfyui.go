// Package comfyui drives ComfyUI (github.com/Comfy-Org/ComfyUI) as a generative engine:
// thumbforge binds its values into API-format workflows (embedded defaults that use core
// nodes only, or an operator's files), uploads the input pictures, queues the graph
// under its own prompt id, follows progress on the socket, reads completion from
// /history and the picture from /view, and on a deadline or a cancelled request
// interrupts the prompt and removes it from the queue.
package comfyui

import (
	"context"
	"fmt"
	"image"
	"net/http"
	"net/url"
	"strings"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// DefaultModel is the checkpoint the embedded workflows load unless --engine-model says.
const DefaultModel = "sd_xl_base_1.0.safetensors"

// Kind is the comfyui engine (--engine comfyui): one ComfyUI runs one queue, so one
// request at a time per URL by default.
func Kind() engines.Kind {
	return engines.Kind{Name: "comfyui", DefaultModel: DefaultModel, DefaultConcurrency: 1, Workflows: true, New: New}
}

// pollEvery is how often /history is read while a prompt runs; the socket's end-of-run
// event makes it read at once, so this only bounds the delay when the socket stalls.
const pollEvery = time.Second

// Backend is one ComfyUI server.
type Backend struct {
	b          *backend
	workflows  Workflows
	defaults   Workflows // the embedded ones, for requests an operator's file cannot serve
	checkpoint string
	caps       engines.Caps
}

var _ engines.Backend = (*Backend)(nil)
var _ engines.Checker = (*Backend)(nil)

// New builds the backend of one URL. The workflows are read and checked here, so a bad
// file stops serve with its problems listed.
func New(cfg engines.BackendConfig) (engines.Backend, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("comfyui: bad URL: %w", err)
	}
	ws, err := LoadWorkflows(cfg.Workflows)
	if err != nil {
		return nil, err
	}
	defaults, err := LoadWorkflows("")
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	if cfg.Key != "" {
		header.Set("Authorization", "Bearer "+cfg.Key)
	}
	cfg = cfg.WithDefaults(2)
	b := &Backend{
		b:          &backend{base: u, header: header, hc: cfg.Client, poll: pollEvery, log: cfg.Logger},
		workflows:  ws,
		defaults:   defaults,
		checkpoint: cfg.Model,
	}
	b.caps = engines.CapText | engines.CapReference | engines.CapEdit | engines.CapMask
	if ws[ForText].Uses("support") && ws[ForImage].Uses("support") {
		b.caps |= engines.CapSupport
	}
	for k, c := range map[Purpose]engines.Caps{ForPersona: engines.CapPersona, ForStyle: engines.CapStyle, ForFaceSwap: engines.CapFaceSwap} {
		if ws[k] != nil {
			b.caps |= c
		}
	}
	return b, nil
}

// Caps: text, reference, edit and mask always (the embedded workflows); support when
// both the text and image workflows take {{support}}; persona, style and faceswap when
// their workflow files are given.
func (a *Backend) Caps() engines.Caps { return a.caps }

// Size is an SDXL training bucket of the format's orientation.
func (a *Backend) Size(f core.Format) (int, int) { return engines.SDXLSize(f) }

// Ping reads /system_stats, ComfyUI's usual liveness probe.
func (a *Backend) Ping(ctx context.Context) error { return a.b.ping(ctx) }

// Generate binds the request into its workflow, uploads the pictures the workflow
// takes, runs it and returns the picture's bytes.
func (a *Backend) Generate(ctx context.Context, req *engines.Request) ([]byte, error) {
	w := a.choose(req)
	if w == nil {
		return nil, engines.Failed("no %s workflow for this request", purposeOf(req, a.workflows))
	}
	values := map[string]any{
		"prompt": req.Prompt, "negative_prompt": req.Negative, "checkpoint": a.checkpoint,
		// 32 bits: custom nodes that seed numpy refuse more
		"seed": req.Seed & 0xffffffff, "width": req.Width, "height": req.Height, "steps": req.Tier.Steps,
		"denoise": denoise(req),
	}
	pictures := map[string]image.Image{}
	if req.Image != nil {
		pictures["image"] = req.Image
	} else if w.Uses("image") {
		pictures["image"] = canvas(req.Width, req.Height) // replaced whole at denoise 1
	}
	if w.Uses("mask") {
		pictures["mask"] = maskPicture(req)
	}
	if req.Support != nil {
		pictures["support"] = req.Support
	}
	if len(req.Faces) > 0 {
		pictures["face"] = req.Faces[0]
	}
	if len(req.Styles) > 0 {
		pictures["style"] = req.Styles[0]
	}
	for name, pic := range pictures {
		if !w.Uses(name) {
			continue
		}
		data, err := engines.EncodePNG(pic)
		if err != nil {
			return nil, err
		}
		if values[name], err = a.b.upload(ctx, data); err != nil {
			return nil, err
		}
	}
	graph, err := w.Bind(values)
	if err != nil {
		return nil, engines.Failed("%v", err)
	}
	return a.b.run(ctx, graph)
}

// choose picks the workflow of a request: persona, then style, for a generation that
// carries their pictures; the image workflow for one with a reference; the text one
// otherwise. An operator's text or image workflow that takes {{support}} serves only
// requests with a support image; the embedded default serves the others.
func (a *Backend) choose(req *engines.Request) *Workflow {
	k := purposeOf(req, a.workflows)
	w := a.workflows[k]
	if w != nil && w.Uses("support") && req.Support == nil {
		return a.defaults[k]
	}
	return w
}

func purposeOf(req *engines.Request, ws Workflows) Purpose {
	switch {
	case req.Op == engines.OpEdit:
		return ForEdit
	case req.Op == engines.OpFaceSwap:
		return ForFaceSwap
	case len(req.Faces) > 0 && ws[ForPersona] != nil:
		return ForPersona
	case len(req.Styles) > 0 && ws[ForStyle] != nil:
		return ForStyle
	case req.Image != nil:
		return ForImage
	}
	return ForText
}

// denoise is how far the sampler may move from the starting picture: the request's
// strength (from image_weight) for a reference; 1 without one (nothing to keep); for an
// edit, the low-weight strength inside a mask (the region is repainted; the engine puts
// the outside back) and the medium one for a whole-picture edit.
func denoise(req *engines.Request) float64 {
	switch {
	case req.Op == engines.OpEdit && req.Mask != nil:
		return engines.Strength(core.WeightLow)
	case req.Op == engines.OpEdit:
		return engines.Strength(core.WeightMedium)
	case req.Image != nil && req.Strength > 0:
		return req.Strength
	}
	return 1
}

// maskPicture is the mask as an opaque grey picture, white where the picture may change
// (LoadImageMask reads its red channel); all white when the request has none.
func maskPicture(req *engines.Request) image.Image {
	if req.Mask != nil {
		return req.Mask
	}
	m := image.NewGray(image.Rect(0, 0, req.Width, req.Height))
	for i := range m.Pix {
		m.Pix[i] = 255
	}
	return m
}

// canvas is a mid-grey picture: the starting picture of an image-to-image workflow run
// without a reference, which denoise 1 replaces whole.
func canvas(w, h int) image.Image {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 128
	}
	return g
}

// Check says, for `thumbforge engine check`, whether the server answers, which workflows
// run, whether the server has every node class they use and the checkpoint they load.
func (a *Backend) Check(ctx context.Context) []engines.Check {
	var out []engines.Check
	stats, err := a.b.do(ctx, http.MethodGet, "/system_stats", nil, "", nil)
	if err != nil {
		return append(out, engines.Check{Name: "reachable", Detail: err.Error()})
	}
	out = append(out, engines.Check{Name: "reachable", OK: true, Detail: systemSummary(stats)})
	var kinds []string
	for _, k := range Purposes {
		if w := a.workflows[k]; w != nil {
			kinds = append(kinds, fmt.Sprintf("%s (%s)", k, w.Source))
		}
	}
	out = append(out, engines.Check{Name: "workflows", OK: true, Detail: strings.Join(kinds, ", ")})
	return append(out, a.checkNodes(ctx)...)
}
