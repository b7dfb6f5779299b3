package engines

import (
	"context"
	"image"
	"log/slog"
	"net/http"
	"strings"

	"thumbforge/internal/core"
)

// Caps is the set of operations a backend does itself. The engine runs the others on the
// builtin (see the package doc).
type Caps uint16

// The capabilities.
const (
	CapText      Caps = 1 << iota // a picture from a prompt
	CapReference                  // a picture from a reference image, at Request.Strength
	CapSupport                    // a support image as an extra composition reference
	CapEdit                       // an edit of Request.Image by instruction
	CapMask                       // an edit limited to Request.Mask
	CapPersona                    // identity from Request.Faces (the persona's face crops)
	CapStyle                      // style from Request.Styles (the style's reference images)
	CapFaceSwap                   // Request.Faces[0] swapped into Request.Image

	// AllCaps is every capability.
	AllCaps = CapText | CapReference | CapSupport | CapEdit | CapMask | CapPersona | CapStyle | CapFaceSwap
)

var capNames = []string{"text", "reference", "support", "edit", "mask", "persona", "style", "faceswap"}

// Has reports whether c holds every capability of x.
func (c Caps) Has(x Caps) bool { return c&x == x }

// String lists the capabilities, comma-separated.
func (c Caps) String() string {
	var out []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// Op is what a Request asks of a backend.
type Op int

// The operations.
const (
	// OpGenerate makes a picture from Prompt; with Image set it starts from that
	// reference and may move Strength away from it. Support, Faces and Styles are extra
	// references, present only when the backend has the capability.
	OpGenerate Op = iota
	// OpEdit applies the instruction in Prompt to Image, only where Mask is white when a
	// mask is set.
	OpEdit
	// OpFaceSwap puts the face of Faces[0] onto the face(s) in Image (those whose centre
	// is white in Mask, when set).
	OpFaceSwap
)

// String names the operation for logs and metrics.
func (o Op) String() string {
	switch o {
	case OpEdit:
		return "edit"
	case OpFaceSwap:
		return "faceswap"
	}
	return "generate"
}

// Request is one picture asked of a backend. The engine has already built the prompt,
// chosen the size (Backend.Size) and cropped every image to it; an adapter maps it onto
// its protocol and nothing more.
type Request struct {
	Op Op
	// Prompt is the full prompt: the user's words verbatim plus the engine's guidance
	// (or, for an edit, the instruction as sent). Negative is what to avoid ("" if none).
	Prompt, Negative string
	// Width and Height are the picture size to ask for: Backend.Size(Format).
	Width, Height int
	Format        core.Format
	Tier          Tier
	// Seed is derived from the request: equal requests ask equal seeds of backends that
	// take one.
	Seed uint64
	// Image is the reference (OpGenerate), the picture to edit (OpEdit) or the target
	// (OpFaceSwap), already Width x Height; nil for text to picture.
	Image *image.RGBA
	// Strength is how far an OpGenerate with Image may move from it (diffusion
	// "denoise", 0..1): higher image weights give strictly lower strengths.
	Strength float64
	// Weight is the image weight Strength came from (OpenAI sends input_fidelity=high
	// for WeightHigh).
	Weight core.Weight
	// Mask is Width x Height, white (255) where the edit applies; nil for none.
	Mask *image.Gray
	// Support is the support image (mdl_4 and mdl_4_5), as sent.
	Support image.Image
	// Faces are the persona's aligned face crops (OpGenerate) or the face to swap in
	// (OpFaceSwap).
	Faces []image.Image
	// Styles are the style's reference images.
	Styles []image.Image
}

// Backend is one generative backend at one URL: what an adapter implements. It must be
// safe for concurrent use; the pool bounds how many requests it is given at once.
type Backend interface {
	// Caps are the operations this backend does itself.
	Caps() Caps
	// Size is the picture size the backend generates for format f, the same orientation
	// as f and as little to crop as the model allows.
	Size(f core.Format) (w, h int)
	// Generate runs req and returns the picture's bytes (PNG, JPEG or WebP) as the
	// backend sent them; the engine decodes, crops and finishes it. It honours ctx: when
	// ctx ends it stops waiting, cancels the backend's job where the protocol can, and
	// returns ctx.Err(). It may call core.ReportProgress(ctx, 0..100) as it goes. Its
	// errors are *Error (see Unavailable, Failed, Refused, Busy, FromResponse); other
	// errors count as Failed.
	Generate(ctx context.Context, req *Request) ([]byte, error)
	// Ping checks cheaply that the backend answers and accepts the key.
	Ping(ctx context.Context) error
}

// Checker is a Backend that can say more than Ping for `thumbforge engine check`: the
// model is known, the workflows validate, and so on.
type Checker interface {
	Check(ctx context.Context) []Check
}

// Check is one line of `thumbforge engine check`.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// BackendConfig is what an adapter is built from: one URL of --engine-url and the
// shared flags.
type BackendConfig struct {
	URL   string // as given, no trailing slash
	Key   string // --engine-key ("" for none); never to be logged or returned
	Model string // --engine-model, or the kind's default
	// Workflows is --engine-workflows (comfyui).
	Workflows string
	// Client is the HTTP client to use: no overall timeout (ctx bounds each call).
	Client *http.Client
	Logger *slog.Logger
}

// WithDefaults returns c with what a caller may leave empty filled: a client keeping
// conns idle connections per host (NewClient) and the default logger.
func (c BackendConfig) WithDefaults(conns int) BackendConfig {
	if c.Client == nil {
		c.Client = NewClient(conns)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Kind is one protocol thumbforge can drive (--engine NAME). Registering a kind is one
// entry in the registry package.
type Kind struct {
	Name string
	// DefaultModel is --engine-model's default for this kind.
	DefaultModel string
	// DefaultConcurrency is --engine-concurrency's default for this kind.
	DefaultConcurrency int
	// Workflows says the kind reads --engine-workflows (comfyui); for the others the flag
	// is a mistake that stops serve.
	Workflows bool
	// New builds the backend of one URL; a configuration it cannot run with is an error
	// that stops serve.
	New func(cfg BackendConfig) (Backend, error)
}
