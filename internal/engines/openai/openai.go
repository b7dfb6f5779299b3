// Package openai drives the OpenAI Images API and the servers that speak it
// (stable-diffusion.cpp's sd-server, LocalAI, gateways): POST {url}/images/generations
// for text to picture, POST {url}/images/edits (multipart, image[] parts, an RGBA mask)
// for everything that has input images. See ENGINES.md §1 and the engines package doc.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// DefaultModel is --engine-model's default for this engine.
const DefaultModel = "gpt-image-1"

// Kind is the openai engine for the registry.
func Kind() engines.Kind {
	return engines.Kind{Name: "openai", DefaultModel: DefaultModel, DefaultConcurrency: 4, New: New}
}

// Backend is one OpenAI-compatible image API.
type Backend struct {
	base   string // the API base including /v1, no trailing slash
	key    string
	model  string
	client *http.Client
	log    *slog.Logger
}

var (
	_ engines.Backend = (*Backend)(nil)
	_ engines.Checker = (*Backend)(nil)
)

// New returns the backend of one URL.
func New(cfg engines.BackendConfig) (engines.Backend, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Client == nil {
		cfg.Client = engines.NewClient(4)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Backend{base: strings.TrimRight(cfg.URL, "/"), key: cfg.Key, model: cfg.Model, client: cfg.Client, log: cfg.Logger}, nil
}

// family sorts model names by what the API lets them do.
type family int

const (
	gptImage  family = iota // gpt-image-1, -1.5, -1-mini and any unknown name
	gptImage2               // gpt-image-2*: any WxH divisible by 16
	dalle3                  // generations only, its own sizes
	dalle2                  // generations only here, square sizes
	sdcpp                   // stable-diffusion.cpp's sd-server (lists itself as sd-cpp-local)
)

// SDCppModel is the model stable-diffusion.cpp's sd-server lists at /v1/models; naming
// it in --engine-model turns on sd.cpp's extensions (seed, strength, steps, negative
// prompt in <sd_cpp_extra_args>).
const SDCppModel = "sd-cpp-local"

func (b *Backend) family() family {
	switch m := b.model; {
	case strings.HasPrefix(m, "gpt-image-2"):
		return gptImage2
	case m == "dall-e-3":
		return dalle3
	case m == "dall-e-2":
		return dalle2
	case m == SDCppModel:
		return sdcpp
	}
	return gptImage
}

// Caps: the DALL-E models have no multi-image edits here, so only text to picture;
// sd-server starts every edit from its first image (extra images would become the
// starting picture of a persona or style job), so it takes references and masked edits
// only; every other model takes references, masks, face crops and style images as
// image[] parts. Face swap is not an API primitive: the builtin does it.
func (b *Backend) Caps() engines.Caps {
	switch b.family() {
	case dalle3, dalle2:
		return engines.CapText
	case sdcpp:
		return engines.CapText | engines.CapReference | engines.CapEdit | engines.CapMask
	}
	return engines.CapText | engines.CapReference | engines.CapSupport | engines.CapEdit |
		engines.CapMask | engines.CapPersona | engines.CapStyle
}

// Size is the model's frame for the format (ENGINES.md's table: sd.cpp takes any size
// divisible by 16 like gpt-image-2; unknown model names take the gpt-image-1 sizes).
func (b *Backend) Size(f core.Format) (int, int) {
	type wh struct{ w, h int }
	var s map[core.Format]wh
	switch b.family() {
	case gptImage2, sdcpp:
		s = map[core.Format]wh{core.Format16x9: {1280, 720}, core.Format9x16: {720, 1280}, core.Format1x1: {1088, 1088}}
	case dalle3:
		s = map[core.Format]wh{core.Format16x9: {1792, 1024}, core.Format9x16: {1024, 1792}, core.Format1x1: {1024, 1024}}
	case dalle2:
		return 1024, 1024
	default:
		s = map[core.Format]wh{core.Format16x9: {1536, 1024}, core.Format9x16: {1024, 1536}, core.Format1x1: {1024, 1024}}
	}
	v, ok := s[f]
	if !ok {
		v = s[core.Format16x9]
	}
	return v.w, v.h
}

// newRequest builds a request to path under the base URL, with the key.
func (b *Backend) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, b.base+path, body)
	if err != nil {
		return nil, engines.Unavailable(err)
	}
	if b.key != "" {
		req.Header.Set("Authorization", "Bearer "+b.key)
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// Ping lists the models: any answer but a refused key or a server error means the API
// is up (sd-server and LocalAI may not list models).
func (b *Backend) Ping(ctx context.Context) error {
	_, err := b.models(ctx)
	return err
}

// models returns the ids the server lists (nil when it has no model list).
func (b *Backend) models(ctx context.Context) ([]string, error) {
	req, err := b.newRequest(ctx, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, err
	}
	body, err := engines.Call(b.client, req, 4<<20, nil)
	if e, ok := err.(*engines.Error); ok && (e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, nil // answered, just not with a list
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// Check says whether the API answers and whether it lists the model.
func (b *Backend) Check(ctx context.Context) []engines.Check {
	ids, err := b.models(ctx)
	if err != nil {
		return []engines.Check{{Name: "GET /models", OK: false, Detail: err.Error()}}
	}
	out := []engines.Check{{Name: "GET /models", OK: true, Detail: fmt.Sprintf("%d models listed", len(ids))}}
	switch {
	case ids == nil:
		out = append(out, engines.Check{Name: "model " + b.model, OK: true, Detail: "the server has no model list; the model is not checked"})
	case slices.Contains(ids, b.model):
		out = append(out, engines.Check{Name: "model " + b.model, OK: true, Detail: "listed"})
	default:
		out = append(out, engines.Check{Name: "model " + b.model, OK: false, Detail: "not listed by the server"})
	}
	return out
}
