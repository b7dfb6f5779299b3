package builtin

import (
	"context"
	"fmt"
	"image"
	"strings"

	"thumbforge/internal/core"
)

// Config configures the builtin engine.
type Config struct {
	// Faces finds faces for cropping and scoring; nil falls back to detail-based saliency.
	Faces core.FaceDetector
	// Candidates is how many layouts mdl_4_5 renders before keeping the best (default 3).
	Candidates int
}

// Validate reports a configuration the engine cannot run with.
func (c Config) Validate() error {
	if c.Candidates < 0 || c.Candidates > 8 {
		return fmt.Errorf("engine: candidates must be between 1 and 8, got %d", c.Candidates)
	}
	return nil
}

// Engine is the builtin deterministic compositor; it implements core.Engine and is safe
// for concurrent use.
type Engine struct {
	cfg   Config
	fonts *fontSet
}

var _ core.Engine = (*Engine)(nil)

// New returns an engine with cfg's defaults applied.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Candidates == 0 {
		cfg.Candidates = 3
	}
	fs, err := newFontSet()
	if err != nil {
		return nil, err
	}
	return &Engine{cfg: cfg, fonts: fs}, nil
}

// plan is what a thumbnail job means once its text has been analysed.
type plan struct {
	job      core.ThumbnailJob
	w, h     int
	seed     uint64
	words    []string // lower-case words of prompt and instructions, for the palette
	headline []string
	theme    theme
	ref      *image.RGBA // cover-cropped reference, nil for text jobs
	tier     int         // 2, 3, 4 or 5 for mdl_2, mdl_3, mdl_4, mdl_4_5
	scale    int         // 1, or candScale while rendering reduced-size candidates
}

// renderInfo records where things were drawn, for tests and the scorer's callers.
type renderInfo struct {
	text     textLayout
	textMask *image.Alpha
	card     image.Rectangle
	face     image.Rectangle
}

func tierOf(model string) int {
	switch model {
	case "mdl_2":
		return 2
	case "mdl_4":
		return 4
	case "mdl_4_5":
		return 5
	default:
		return 3
	}
}

// Thumbnail renders a thumbnail of exactly job.Format's size.
func (e *Engine) Thumbnail(ctx context.Context, job core.ThumbnailJob) (image.Image, error) {
	img, _, err := e.thumbnail(ctx, job)
	if err != nil {
		return nil, err
	}
	return img, nil
}

func (e *Engine) thumbnail(ctx context.Context, job core.ThumbnailJob) (*image.RGBA, *renderInfo, error) {
	w, h, ok := job.Format.Size()
	if !ok {
		return nil, nil, core.E(core.CodeValidation, "Unknown format %q.", job.Format)
	}
	p := &plan{job: job, w: w, h: h, tier: tierOf(job.Model)}
	text := jobText(job)
	p.seed = jobSeed(job, text)
	p.words = words(text)
	p.headline = headline(text, p.seed)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if job.Reference != nil {
		p.ref = coverCrop(job.Reference, e.cfg.Faces, w, h)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
	}
	p.theme = e.chooseTheme(p)

	if p.tier < 5 {
		variant := int(p.seed % 2)
		return e.render(ctx, p, variant, styleStroke)
	}
	return e.bestOf(ctx, p)
}

// jobText is the text a thumbnail job is about: its prompt and special instructions.
// mdl_2's image-to-thumbnail restyle ignores the prompt (SPEC); text jobs (v1's mdl-1
// and mdl-2 map to mdl_2) have nothing but the prompt, so they keep it.
func jobText(job core.ThumbnailJob) string {
	if tierOf(job.Model) == 2 && job.Reference != nil {
		return ""
	}
	if len(job.Instructions) > 0 {
		return strings.TrimSpace(job.Prompt + ". " + strings.Join(job.Instructions, ". "))
	}
	return job.Prompt
}

// jobSeed mixes everything that shapes a render into one seed.
func jobSeed(job core.ThumbnailJob, text string) uint64 {
	return hashStrings(job.Seed, job.Model, string(job.Format), text, string(job.Weight))
}

// chooseTheme picks the palette: the prompt's topic, else the style's palette, else the
// reference's own colours, else a hash of the words.
func (e *Engine) chooseTheme(p *plan) theme {
	th, ok := pickTheme(p.words)
	if !ok {
		switch {
		case p.ref != nil:
			pal := Palette(p.ref, 4)
			th = theme{name: "reference", top: pal[0], bottom: pal[1], accent: pal[2], second: pal[3], motif: motifBokeh}
			th.accent = hsvVivid(th.accent)
		default:
			th = hashTheme(p.words, p.seed)
		}
	}
	if st := p.job.Style; st != nil && len(st.Palette) >= 2 {
		pal := sortByLuma(st.Palette)
		th.top, th.bottom = pal[0], pal[len(pal)/2]
		th.accent = hsvVivid(pal[len(pal)-1])
	}
	return th
}

// render draws one candidate as a list of small steps, checking ctx between them.
func (e *Engine) render(ctx context.Context, p *plan, variant int, st textStyle) (*image.RGBA, *renderInfo, error) {
	canvas := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	info := &renderInfo{}
	subject := p.ref != nil || p.job.Persona != nil && len(p.job.Persona.Faces) > 0 || (p.tier >= 4 && p.job.Support != nil)
	lay := makeLayout(p.job.Format, p.w, p.h, variant, subject)
	r := newRNG(p.seed + uint64(variant)*0x9e37)
	// bg is the half-size background until a step draws over it: flush upscales it into
	// the canvas first. A headline drawn straight onto the background scrims the half-size
	// image instead, a quarter of the pixels: sRGB to linear light is convex, so the
	// bilinear upscale of pixels at most lmax bright stays at most lmax bright.
	var bg *image.RGBA
	flush := func() {
		if bg != nil {
			upscale2x(canvas, bg)
			halfPool.Put(bg)
			bg = nil
		}
	}
	steps := []func(){
		func() { bg = stepBackground(canvas.Rect, p, lay, r, variant) },
		func() {
			if p.ref != nil {
				flush()
				blendReference(canvas, p.ref, p.weight())
			}
		},
		func() {
			if p.job.Style != nil {
				flush()
				applyStyle(canvas, p.job.Style)
			}
		},
		func() {
			if p.tier >= 4 && p.job.Support != nil {
				flush()
				c, h := lay.focus, lay.hero
				if hasPersona(p) {
					c, h = lay.card, lay.hero*3/4
				}
				info.card = drawCard(canvas, p.job.Support, c, h)
			}
		},
		func() {
			if hasPersona(p) {
				flush()
				info.face = pasteFace(canvas, p.job.Persona.Faces[0], lay.focus, lay.hero, p.theme.accent)
			}
		},
		func() {
			if p.tier >= 4 && len(p.headline) > 0 && p.job.Format != core.Format1x1 {
				flush()
				drawArrow(canvas, lay, p.theme.accent)
			}
		},
		func() {
			if len(p.headline) == 0 {
				return
			}
			tl, ok := e.fonts.layoutHeadline(p.headline, lay.text, lay.align, lay.maxSize, minFontSize/max(1, p.scale))
			if !ok {
				return
			}
			info.text = tl
			if bg == nil {
				info.textMask = e.drawHeadline(canvas, tl, st, p.theme.accent)
				return
			}
			s := headlineScrim(tl, p.theme.accent, canvas.Rect)
			scrim(bg, halfRect(s.region).Intersect(bg.Rect), s.lmax, s.feather/2)
			flush()
			info.textMask = e.inkHeadline(canvas, tl, st, p.theme.accent)
		},
		flush,
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		s()
	}
	return canvas, info, ctx.Err()
}

// weight is the image weight that applies: job.Weight on mdl_2, high fidelity otherwise
// (the API documents image_weight as an mdl_2 setting).
func (p *plan) weight() core.Weight {
	if p.tier == 2 {
		return p.job.Weight
	}
	return core.WeightHigh
}

func hasPersona(p *plan) bool { return p.job.Persona != nil && len(p.job.Persona.Faces) > 0 }

// candScale is how much smaller mdl_4_5 renders its candidates: the scorer judges a
// copy at most 256 px wide anyway, so a quarter-size render (1/16 of the pixels) scores
// nearly the same and only the winner is rendered at full size.
const candScale = 4

// bestOf renders the configured number of layout candidates at reduced size, scores
// them under the job's scoring deadline, and renders the best at full size.
func (e *Engine) bestOf(ctx context.Context, p *plan) (*image.RGBA, *renderInfo, error) {
	small := *p
	small.w, small.h, small.scale = max(1, p.w/candScale), max(1, p.h/candScale), candScale
	if p.ref != nil {
		small.ref = resize(p.ref, small.w, small.h)
	}
	var cands []*image.RGBA
	for i := range e.cfg.Candidates {
		img, _, err := e.render(ctx, &small, int(p.seed%2)+i, styleStroke)
		if err != nil {
			return nil, nil, err
		}
		cands = append(cands, img)
	}
	sctx := ctx
	if p.job.ScoringTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, p.job.ScoringTimeout)
		defer cancel()
	}
	best, bestScore := 0, -1.0
	for i, c := range cands {
		s, err := e.score(sctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, core.E(core.CodeScoringTimeout, "Scoring the candidates timed out.")
		}
		if s.total > bestScore {
			best, bestScore = i, s.total
		}
	}
	return e.render(ctx, p, int(p.seed%2)+best, styleStroke)
}
