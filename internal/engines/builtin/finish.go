package builtin

import (
	"context"
	"image"
	"image/color"

	"thumbforge/internal/core"
)

// What the generative engines borrow from the builtin: the crop, the typography and the
// layers a model cannot be trusted with (exact size, a legible headline, a persona's
// portrait, a style's colours, a support card).

// Fit crops img around its salient content (faces first) to the aspect of w x h and
// scales it to exactly w x h, as reference images are cropped: never stretched.
func (e *Engine) Fit(img image.Image, w, h int) *image.RGBA {
	return coverCrop(img, e.cfg.Faces, w, h)
}

// FitRect is the part of img that Fit keeps for an output of w x h.
func (e *Engine) FitRect(img image.Image, w, h int) image.Rectangle {
	return coverRect(img.Bounds(), w, h, salientCentre(img, e.cfg.Faces, w, h))
}

// Subject is where a picture's subject is: its largest face, when one is found.
type Subject struct {
	Face    image.Rectangle
	HasFace bool
}

// subjectSide is the longest side of the copy FitPicture looks for faces in: the faces
// that matter to a crop and a headline are large, and the cascade's cost grows with the
// area (a 320 copy costs a seventh of the 640 one).
const subjectSide = 320

// FitPicture is Fit for a generated picture: faces are looked for once, on a small
// copy, and the crop aims at the largest; it returns the picture at exactly w x h and
// the face's place in it, for Finish.
func (e *Engine) FitPicture(img image.Image, w, h int) (*image.RGBA, Subject) {
	b := img.Bounds()
	var subj Subject
	c, found := image.Point{}, false
	if e.cfg.Faces != nil {
		sw, sh := fitSize(b.Dx(), b.Dy(), subjectSide)
		if fs := e.cfg.Faces.Detect(smallLuma(img, sw, sh)); len(fs) > 0 {
			k := float64(b.Dx()) / float64(sw)
			f := fs[0].Box
			subj.Face = image.Rect(b.Min.X+int(float64(f.Min.X)*k), b.Min.Y+int(float64(f.Min.Y)*k),
				b.Min.X+int(float64(f.Max.X)*k), b.Min.Y+int(float64(f.Max.Y)*k))
			c = image.Pt((subj.Face.Min.X+subj.Face.Max.X)/2, (subj.Face.Min.Y+subj.Face.Max.Y)/2+subj.Face.Dy()*3/10)
			found = true
		}
	}
	if !found {
		c = salientCentre(img, nil, w, h)
	}
	r := coverRect(b, w, h, c)
	out := resizeRect(img, r, w, h)
	if found {
		kx, ky := float64(w)/float64(r.Dx()), float64(h)/float64(r.Dy())
		subj.Face = image.Rect(int(float64(subj.Face.Min.X-r.Min.X)*kx), int(float64(subj.Face.Min.Y-r.Min.Y)*ky),
			int(float64(subj.Face.Max.X-r.Min.X)*kx), int(float64(subj.Face.Max.Y-r.Min.Y)*ky)).Intersect(out.Rect)
		subj.HasFace = !subj.Face.Empty()
	}
	return out, subj
}

// Resize scales the part r of img to exactly w x h.
func Resize(img image.Image, r image.Rectangle, w, h int) *image.RGBA {
	return resizeRect(img, r, w, h)
}

// Headline is the headline the builtin sets for job: 2 to 5 upper-case words of its
// prompt and special instructions; none for mdl_2 with a reference (it ignores the
// prompt).
func Headline(job core.ThumbnailJob) []string {
	text := jobText(job)
	return headline(text, jobSeed(job, text))
}

// Layers says which builtin layers Finish draws over a generated picture.
type Layers struct {
	Style    bool // move the colours toward job.Style's
	Support  bool // job.Support as an inset card (mdl_4 and mdl_4_5)
	Portrait bool // the persona's first face, composited at the focal point
	Headline bool // the headline, with at least 4.5:1 contrast, never clipped
}

// smallLuma is a w x h grey copy of img for face detection: for a decoded JPEG each
// output pixel averages four luma samples around its centre (no colour conversion, a
// fraction of a resize's cost); other images are resized.
func smallLuma(img image.Image, w, h int) image.Image {
	y, ok := img.(*image.YCbCr)
	if !ok {
		return resize(img, w, h)
	}
	b := y.Rect
	out := image.NewGray(image.Rect(0, 0, w, h))
	for oy := range h {
		sy0 := min(b.Dy()-1, (2*oy+1)*b.Dy()/(2*h))
		sy1 := min(b.Dy()-1, sy0+1)
		r0, r1 := y.Y[sy0*y.YStride:], y.Y[sy1*y.YStride:]
		row := out.Pix[oy*out.Stride : oy*out.Stride+w]
		for ox := range w {
			sx0 := min(b.Dx()-1, (2*ox+1)*b.Dx()/(2*w))
			sx1 := min(b.Dx()-1, sx0+1)
			row[ox] = uint8((int(r0[sx0]) + int(r0[sx1]) + int(r1[sx0]) + int(r1[sx1]) + 2) / 4)
		}
	}
	return out
}

// Finish draws the chosen layers over dst, a picture of exactly job.Format's size whose
// subject FitPicture found. The headline goes to the side away from the subject (its
// face, else its detail) and off the face, so it covers as little of the scene as the
// layout allows.
func (e *Engine) Finish(ctx context.Context, dst *image.RGBA, job core.ThumbnailJob, subj Subject, layers Layers) error {
	_, err := e.finish(ctx, dst, job, subj, layers)
	return err
}

// finish is Finish, also returning where the headline went (for tests).
func (e *Engine) finish(ctx context.Context, dst *image.RGBA, job core.ThumbnailJob, subj Subject, layers Layers) (*renderInfo, error) {
	w, h, ok := job.Format.Size()
	if !ok || dst.Rect != image.Rect(0, 0, w, h) {
		return nil, core.E(core.CodeInternal, "Finish: the picture is not %s at its output size.", job.Format)
	}
	info := &renderInfo{}
	words := Headline(job)
	lay := makeLayout(job.Format, w, h, freeSide(dst, job.Format, subj), true)
	if subj.HasFace {
		lay.text = avoid(lay.text, subj.Face.Inset(-subj.Face.Dx()/10), job.Format)
	}
	accent := e.accent(dst, job)
	steps := []func(){
		func() {
			if layers.Style && job.Style != nil {
				applyStyle(dst, job.Style)
			}
		},
		func() {
			if layers.Support && job.Support != nil {
				drawCard(dst, job.Support, lay.card, lay.hero*3/4)
			}
		},
		func() {
			if layers.Portrait && job.Persona != nil && len(job.Persona.Faces) > 0 {
				pasteFace(dst, job.Persona.Faces[0], lay.focus, lay.hero, accent)
			}
		},
		func() {
			if !layers.Headline || len(words) == 0 {
				return
			}
			if tl, ok := e.fonts.layoutHeadline(words, lay.text, lay.align, lay.maxSize, minFontSize); ok {
				info.text, info.textMask = tl, e.drawHeadline(dst, tl, styleStroke, accent)
			}
		},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s()
	}
	return info, ctx.Err()
}

// freeSide returns the layout variant whose headline area lies away from the subject
// (the face, else the detail): 16:9 puts text left (0) or right (1), 9:16 top (0) or
// bottom (1).
func freeSide(img *image.RGBA, f core.Format, subj Subject) int {
	b := img.Rect
	c := detailCentre(img)
	if subj.HasFace {
		c = subj.Face.Min.Add(subj.Face.Max).Div(2)
	}
	switch f {
	case core.Format16x9:
		if c.X < b.Dx()/2 {
			return 1
		}
	case core.Format9x16:
		if c.Y < b.Dy()/2 {
			return 1
		}
	}
	return 0
}

// avoid shrinks the headline box so it does not cover the face, along the axis the
// format stacks on (16:9 across, 9:16 and 1:1 down); when too little would be left it
// keeps the box as it is.
func avoid(text, face image.Rectangle, f core.Format) image.Rectangle {
	if !text.Overlaps(face) {
		return text
	}
	if f == core.Format16x9 {
		lo, hi, ok := avoidSpan(text.Min.X, text.Max.X, face.Min.X, face.Max.X)
		if ok {
			text.Min.X, text.Max.X = lo, hi
		}
		return text
	}
	lo, hi, ok := avoidSpan(text.Min.Y, text.Max.Y, face.Min.Y, face.Max.Y)
	if ok {
		text.Min.Y, text.Max.Y = lo, hi
	}
	return text
}

// avoidSpan cuts the span [lo, hi) at the face's span [flo, fhi) on the side the face is
// not; ok is false when less than half the span would be left.
func avoidSpan(lo, hi, flo, fhi int) (int, int, bool) {
	nlo, nhi := lo, hi
	if flo+fhi < lo+hi { // the face is before the span's centre
		nlo = fhi
	} else {
		nhi = flo
	}
	return nlo, nhi, nhi-nlo >= (hi-lo)/2
}

// detailCentre is the centroid of img's edge energy, on a small copy.
func detailCentre(img *image.RGBA) image.Point {
	b := img.Rect
	sw, sh := fitSize(b.Dx(), b.Dy(), 96)
	small := resize(img, sw, sh)
	energy := edgeEnergy(small)
	var sx, sy, sum float64
	for i, v := range energy {
		sx += v * float64(i%sw)
		sy += v * float64(i/sw)
		sum += v
	}
	if sum == 0 {
		return image.Pt(b.Dx()/2, b.Dy()/2)
	}
	return image.Pt(int(sx/sum*float64(b.Dx())/float64(sw)), int(sy/sum*float64(b.Dy())/float64(sh)))
}

// accent is the headline's highlight colour: the prompt's theme when its words name
// one, else the style's brightest colour, else the picture's most vivid colour.
func (e *Engine) accent(img *image.RGBA, job core.ThumbnailJob) color.RGBA {
	if th, ok := pickTheme(words(jobText(job))); ok {
		return th.accent
	}
	if st := job.Style; st != nil && len(st.Palette) > 0 {
		pal := sortByLuma(st.Palette)
		return hsvVivid(pal[len(pal)-1])
	}
	sw, sh := fitSize(img.Rect.Dx(), img.Rect.Dy(), 64)
	return hsvVivid(Palette(resize(img, sw, sh), 4)[2])
}

// ColourName is the name of the colour nearest c among those edits understand (for
// prompts that describe a style's palette in words).
func ColourName(c color.RGBA) string {
	best, bestD := "", 1<<30
	for _, n := range colourNames {
		dr, dg, db := int(c.R)-int(n.c.R), int(c.G)-int(n.c.G), int(c.B)-int(n.c.B)
		if d := 2*dr*dr + 4*dg*dg + 3*db*db; d < bestD {
			best, bestD = n.name, d
		}
	}
	return best
}
