package engines

import (
	"context"
	"errors"
	"image"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// maxImageParts is how many images one request may carry (OpenAI's edits take 16).
const maxImageParts = 16

// Thumbnail generates job on a backend and finishes it to the exact output size. A
// reference the backend cannot take runs the whole job on the builtin; a persona, style
// or support image it cannot take is added by the builtin afterwards.
func (e *Engine) Thumbnail(ctx context.Context, job core.ThumbnailJob) (image.Image, error) {
	w, h, ok := job.Format.Size()
	if !ok {
		return nil, core.E(core.CodeValidation, "Unknown format %q.", job.Format)
	}
	need := CapText
	if job.Reference != nil {
		need |= CapReference
	}
	if !e.caps.Has(need) {
		return e.opts.Builtin.Thumbnail(ctx, job)
	}
	req := e.thumbnailRequest(job)
	pic, err := e.generate(ctx, req)
	if err != nil {
		return nil, err
	}
	out, subj := e.opts.Builtin.FitPicture(pic, w, h)
	layers := builtin.Layers{
		Headline: e.opts.Config.Text != TextModel,
		Style:    job.Style != nil && req.Styles == nil,
		Support:  job.Support != nil && req.Support == nil && TierOf(job.Model).Level >= 3,
	}
	if job.Persona != nil && len(job.Persona.Faces) > 0 && req.Faces == nil {
		// The backend cannot do identity: the builtin swaps the persona's face onto the
		// person in the scene, or composites the portrait where it finds no face.
		var swapped bool
		if out, swapped, err = e.swapPersona(ctx, out, job.Persona.Faces[0], job.Format); err != nil {
			return nil, err
		}
		layers.Portrait = !swapped
	}
	if err := e.opts.Builtin.Finish(ctx, out, job, subj, layers); err != nil {
		return nil, err
	}
	core.ReportProgress(ctx, 95)
	return out, nil
}

// thumbnailRequest builds the backend request of a thumbnail job: the prompt, the size,
// the reference cropped to that size and the extra references the backend can take.
func (e *Engine) thumbnailRequest(job core.ThumbnailJob) *Request {
	w, h, _ := job.Format.Size()
	bw, bh := e.size(job.Format)
	tier := TierOf(job.Model)
	req := &Request{Op: OpGenerate, Width: bw, Height: bh, Format: job.Format, Tier: tier, Seed: job.Seed}
	if job.Reference != nil {
		// image_weight is an mdl_2 setting (the API's rule); other tiers let the prompt
		// reshape the reference at the medium strength.
		req.Weight = core.WeightMedium
		if tier.Level == 1 && job.Weight != "" {
			req.Weight = job.Weight
		}
		req.Strength = Strength(req.Weight)
		req.Image = e.opts.Builtin.Fit(job.Reference, bw, bh)
	}
	parts := 0
	if req.Image != nil {
		parts++
	}
	if job.Support != nil && tier.Level >= 3 && e.caps.Has(CapSupport) {
		req.Support = job.Support
		parts++
	}
	if job.Persona != nil && len(job.Persona.Faces) > 0 && e.caps.Has(CapPersona) {
		req.Faces = job.Persona.Faces[:min(len(job.Persona.Faces), maxImageParts-parts-min(len(job.StyleImages), 3))]
		parts += len(req.Faces)
	}
	if len(job.StyleImages) > 0 && e.caps.Has(CapStyle) {
		req.Styles = job.StyleImages[:min(len(job.StyleImages), maxImageParts-parts)]
	}
	req.Prompt, req.Negative = promptPlan{
		job: job, caps: e.caps, mode: e.opts.Config.Text, crop: !sameAspect(bw, bh, w, h),
	}.build()
	return req
}

// sameAspect reports whether two sizes have the same aspect within 2 %.
func sameAspect(w1, h1, w2, h2 int) bool {
	a, b := float64(w1)*float64(h2), float64(w2)*float64(h1)
	return a <= b*1.02 && b <= a*1.02
}

// swapPersona puts face onto the largest face of img with the builtin face swap. It
// reports false, with img unchanged, when either side has no detectable face.
func (e *Engine) swapPersona(ctx context.Context, img *image.RGBA, face image.Image, f core.Format) (*image.RGBA, bool, error) {
	out, err := e.opts.Swapper.FaceSwap(ctx, core.FaceSwapJob{Target: img, Face: face, Format: f})
	switch {
	case errors.Is(err, core.ErrNoTargetFace), errors.Is(err, core.ErrNoSourceFace):
		return img, false, nil
	case err != nil:
		return nil, false, err
	}
	w, h, _ := f.Size()
	if rgba, ok := out.(*image.RGBA); ok && rgba.Rect == image.Rect(0, 0, w, h) {
		return rgba, true, nil
	}
	return builtin.Resize(out, out.Bounds(), w, h), true, nil
}
