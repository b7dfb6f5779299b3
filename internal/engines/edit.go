package engines

import (
	"context"
	"image"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
)

// Edits and swaps keep the input's geometry: the part of the input that the output
// format keeps (faces first) is scaled to the backend's size, and the backend's picture
// is scaled back to the output size. Where the two aspects differ a little (3:2 frames
// for a 16:9 output) the model sees the input slightly squeezed and the squeeze is
// undone, so every pixel of the output maps onto the same pixel of the input.

// Edit applies the instruction, as written, on a backend. With a mask, only the masked
// region changes: the input's own pixels are composited back outside it (models treat
// masks as guidance). Without a format the output takes the format nearest the input.
func (e *Engine) Edit(ctx context.Context, job core.EditJob) (image.Image, error) {
	if job.Image == nil || job.Image.Bounds().Empty() {
		return nil, core.E(core.CodeInvalidImage, "The image is empty.")
	}
	need := CapEdit
	if job.Mask != nil {
		need |= CapMask
	}
	if !e.caps.Has(need) {
		return e.opts.Builtin.Edit(ctx, job)
	}
	req, rect := e.inputRequest(OpEdit, job.Image, job.Mask, job.Format)
	req.Prompt, req.Seed = job.Instruction, job.Seed
	pic, err := e.generate(ctx, req)
	if err != nil {
		return nil, err
	}
	w, h, _ := req.Format.Size()
	out := builtin.Resize(pic, pic.Bounds(), w, h)
	if job.Mask != nil {
		keepOutside(out, builtin.Resize(job.Image, rect, w, h), maskPart(job.Mask, job.Image.Bounds(), rect, w, h))
	}
	core.ReportProgress(ctx, 95)
	return out, ctx.Err()
}

// FaceSwap swaps on the backend when it can, else with the builtin. The faces are found
// here first, so a target or face without one is refused the same way on every engine
// (a swapper model returns the target unchanged when it finds no face).
func (e *Engine) FaceSwap(ctx context.Context, job core.FaceSwapJob) (image.Image, error) {
	if !e.caps.Has(CapFaceSwap) {
		return e.opts.Swapper.FaceSwap(ctx, job)
	}
	if err := e.checkFaces(job); err != nil {
		return nil, err
	}
	req, _ := e.inputRequest(OpFaceSwap, job.Target, job.Mask, job.Format)
	req.Prompt, req.Faces = "Swap the face.", []image.Image{job.Face}
	pic, err := e.generate(ctx, req)
	if err != nil {
		return nil, err
	}
	core.ReportProgress(ctx, 95)
	w, h, _ := req.Format.Size()
	return builtin.Resize(pic, pic.Bounds(), w, h), ctx.Err()
}

// inputRequest is the request of an operation on an input picture: the format (the one
// asked, else the nearest to the input's aspect), the part of img that format keeps
// (rect, in img's coordinates) scaled to the backend's size, and the mask's same part.
func (e *Engine) inputRequest(op Op, img, mask image.Image, f core.Format) (*Request, image.Rectangle) {
	if _, _, ok := f.Size(); !ok {
		f = core.ClosestFormat(img)
	}
	w, h, _ := f.Size()
	bw, bh := e.size(f)
	rect := e.opts.Builtin.FitRect(img, w, h)
	req := &Request{Op: op, Width: bw, Height: bh, Format: f, Tier: TierOf("mdl_3"), Image: builtin.Resize(img, rect, bw, bh)}
	if mask != nil {
		req.Mask = maskPart(mask, img.Bounds(), rect, bw, bh)
	}
	return req, rect
}

// checkFaces returns core.ErrNoTargetFace or core.ErrNoSourceFace when a side of the
// swap has no detectable face (in the target, none whose centre the mask selects).
func (e *Engine) checkFaces(job core.FaceSwapJob) error {
	if job.Target == nil || job.Target.Bounds().Empty() {
		return core.ErrNoTargetFace
	}
	if job.Face == nil || job.Face.Bounds().Empty() {
		return core.ErrNoSourceFace
	}
	if e.opts.Faces == nil {
		return nil
	}
	tb := job.Target.Bounds()
	found := false
	for _, f := range e.opts.Faces.Detect(job.Target) {
		c := f.Box.Min.Add(f.Box.Max).Div(2)
		if job.Mask == nil || maskValue(job.Mask, tb, c) >= 128 {
			found = true
			break
		}
	}
	if !found {
		return core.ErrNoTargetFace
	}
	if len(e.opts.Faces.Detect(job.Face)) == 0 {
		return core.ErrNoSourceFace
	}
	return nil
}

// maskValue is the mask's luma at the point p of an image with bounds b (masks may have
// another size than their image).
func maskValue(mask image.Image, b image.Rectangle, p image.Point) uint8 {
	mb := mask.Bounds()
	x := mb.Min.X + (p.X-b.Min.X)*mb.Dx()/max(1, b.Dx())
	y := mb.Min.Y + (p.Y-b.Min.Y)*mb.Dy()/max(1, b.Dy())
	r, g, bl, _ := mask.At(x, y).RGBA()
	return uint8((299*r + 587*g + 114*bl) / 1000 >> 8)
}

// maskPart maps rect (in the coordinates of an image with bounds src) into the mask's own
// coordinates and returns that part of the mask as grey levels, scaled to w x h.
func maskPart(mask image.Image, src, rect image.Rectangle, w, h int) *image.Gray {
	mb := mask.Bounds()
	mr := image.Rect(
		mb.Min.X+(rect.Min.X-src.Min.X)*mb.Dx()/src.Dx(), mb.Min.Y+(rect.Min.Y-src.Min.Y)*mb.Dy()/src.Dy(),
		mb.Min.X+(rect.Max.X-src.Min.X)*mb.Dx()/src.Dx(), mb.Min.Y+(rect.Max.Y-src.Min.Y)*mb.Dy()/src.Dy())
	rgba := builtin.Resize(mask, mr, w, h)
	out := image.NewGray(image.Rect(0, 0, w, h))
	for i := range out.Pix {
		p := rgba.Pix[4*i:]
		out.Pix[i] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2])) / 1000)
	}
	return out
}

// keepOutside blends orig back into out where the mask is not white: fully where it is
// black, in proportion in between.
func keepOutside(out, orig *image.RGBA, mask *image.Gray) {
	for i, m := range mask.Pix {
		if m == 255 {
			continue
		}
		a := int(m)
		for c := range 3 {
			o := 4*i + c
			out.Pix[o] = uint8((int(out.Pix[o])*a + int(orig.Pix[o])*(255-a) + 127) / 255)
		}
	}
}
