package builtin

import (
	"context"
	"image"
	"strings"

	"thumbforge/internal/core"
)

// maxEditSide caps the longest side of edits that keep the input's aspect.
const maxEditSide = 1920

// Edit applies a free-text instruction to job.Image, limited to job.Mask's white region
// when a mask is given. With job.Format set the result is cover-cropped to its size;
// otherwise it keeps the input's size, capped at 1920 on the longest side.
func (e *Engine) Edit(ctx context.Context, job core.EditJob) (image.Image, error) {
	if job.Image == nil || job.Image.Bounds().Empty() {
		return nil, core.E(core.CodeInvalidImage, "The image is empty.")
	}
	ops, err := ParseInstruction(job.Instruction)
	if err != nil {
		return nil, err
	}
	// Geometry first: zoom and the output size select one source rectangle, so the image
	// is resampled once and the mask follows exactly the same crop.
	src := job.Image.Bounds()
	rect := src
	for _, op := range ops {
		if op.Kind == OpZoom {
			rect = zoomRect(rect, op.Amount)
		}
	}
	w, h := fitSize(rect.Dx(), rect.Dy(), maxEditSide)
	if fw, fh, ok := job.Format.Size(); ok {
		w, h = fw, fh
		rect = coverRect(rect, fw, fh, image.Pt((rect.Min.X+rect.Max.X)/2, (rect.Min.Y+rect.Max.Y)/2))
	}
	img := resizeRect(job.Image, rect, w, h)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var orig *image.RGBA
	if job.Mask != nil {
		orig = cloneRGBA(img)
	}
	var texts []string
	for _, op := range ops {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch op.Kind {
		case OpAddText:
			texts = append(texts, op.Text)
		case OpZoom:
		default:
			e.applyOp(img, op)
		}
	}
	if job.Mask != nil {
		mb := job.Mask.Bounds()
		// Map the source rectangle into the mask's own coordinates (masks may differ in size).
		mr := image.Rect(
			mb.Min.X+(rect.Min.X-src.Min.X)*mb.Dx()/src.Dx(), mb.Min.Y+(rect.Min.Y-src.Min.Y)*mb.Dy()/src.Dy(),
			mb.Min.X+(rect.Max.X-src.Min.X)*mb.Dx()/src.Dx(), mb.Min.Y+(rect.Max.Y-src.Min.Y)*mb.Dy()/src.Dy())
		blendMask(img, orig, resizeRect(job.Mask, mr, w, h))
	}
	for _, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.addText(img, t)
	}
	return img, ctx.Err()
}

// zoomRect returns the centre part of r, factor times smaller.
func zoomRect(r image.Rectangle, factor float64) image.Rectangle {
	if factor <= 1 {
		return r
	}
	w, h := int(float64(r.Dx())/factor), int(float64(r.Dy())/factor)
	w, h = max(w, 1), max(h, 1)
	x0 := r.Min.X + (r.Dx()-w)/2
	y0 := r.Min.Y + (r.Dy()-h)/2
	return image.Rect(x0, y0, x0+w, y0+h)
}

// blendMask keeps the edit where mask is white and the original where it is black.
func blendMask(img, orig, mask *image.RGBA) {
	for i := 0; i+3 < len(img.Pix); i += 4 {
		m := mask.Pix[i : i+3 : i+3]
		a := (299*int(m[0]) + 587*int(m[1]) + 114*int(m[2])) / 1000
		if a == 255 {
			continue
		}
		for c := range 3 {
			img.Pix[i+c] = uint8((int(img.Pix[i+c])*a + int(orig.Pix[i+c])*(255-a) + 127) / 255)
		}
	}
}

// addText draws text as a headline in the lower band of the image.
func (e *Engine) addText(img *image.RGBA, text string) {
	ws := strings.Fields(strings.ToUpper(text))
	for len(ws) > 6 { // bound the wrapping search; join the tail into longer lines
		ws = append(ws[:len(ws)-2], ws[len(ws)-2]+" "+ws[len(ws)-1])
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	box := image.Rect(w*6/100, h*62/100, w*94/100, h*93/100)
	tl, ok := e.fonts.layoutHeadline(ws, box, 0, h/5, minFontSize)
	if !ok {
		return
	}
	e.drawHeadline(img, tl, styleStroke, rgb(255, 214, 0))
}
