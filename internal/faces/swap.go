package faces

import (
	"context"

	"fmt"
	"image"
	"image/color"
	"math"

	xdraw "golang.org/x/image/draw"

	"thumbforge/internal/core"
)

// maxOutputSide caps the result's longest side when the job names no format.
const maxOutputSide = 1920

// statsRadius is the part of the face ellipse whose colour is measured: the inner skin,
// away from hair, ears and background.
const statsRadius = 0.8

// Swapper swaps the largest face of one image into the faces of another. It is safe for
// concurrent use when its Detector is.
type Swapper struct {
	det *Detector
}

var _ core.FaceSwapper = (*Swapper)(nil)

// NewSwapper returns a Swapper that finds faces with d.
func NewSwapper(d *Detector) *Swapper { return &Swapper{det: d} }

// FaceSwap puts job.Face's largest face onto the largest face of job.Target, or onto every
// target face whose centre is white in job.Mask. The steps are small and ctx is checked
// between them.
func (s *Swapper) FaceSwap(ctx context.Context, job core.FaceSwapJob) (image.Image, error) {
	if job.Target == nil || job.Target.Bounds().Empty() {
		return nil, core.ErrNoTargetFace
	}
	if job.Face == nil || job.Face.Bounds().Empty() {
		return nil, core.ErrNoSourceFace
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	targets, err := selectTargets(s.det.Detect(job.Target), job.Mask, job.Target.Bounds())
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sources := s.det.Detect(job.Face)
	if len(sources) == 0 {
		return nil, core.ErrNoSourceFace
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	canvas, place, err := outputCanvas(job.Target, targets, job.Format)
	if err != nil {
		return nil, err
	}
	frames := make([]frame, len(targets))
	need := 0.0
	for i, t := range targets {
		frames[i] = place(frameOf(t))
		need = math.Max(need, frames[i].d*2*cropHalf)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The source face is resampled once into an aligned crop at the resolution the largest
	// target face needs; every target then samples that crop.
	size := clampI(int(need), 64, 1024)
	src := AlignedCrop(job.Face, sources[0], size)
	srcFr := cropFrame(size)
	srcStats := ellipseStats(src, srcFr, statsRadius)
	for _, fr := range frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tr := newTransfer(srcStats, ellipseStats(canvas, fr, statsRadius))
		blendFace(canvas, fr, src, srcFr, tr)
	}
	return canvas, nil
}

// selectTargets picks the faces to replace: the largest without a mask, otherwise every
// face whose box centre falls on the mask's white region (luma > 127), the mask being
// scaled to the target's size.
func selectTargets(faces []core.Face, mask image.Image, tb image.Rectangle) ([]core.Face, error) {
	if len(faces) == 0 {
		return nil, core.ErrNoTargetFace
	}
	if mask == nil {
		return faces[:1], nil
	}
	mb := mask.Bounds()
	if mb.Empty() {
		return nil, core.ErrNoTargetFace
	}
	var out []core.Face
	for _, f := range faces {
		c := f.Box.Min.Add(f.Box.Max).Div(2)
		mx := mb.Min.X + clampI((c.X-tb.Min.X)*mb.Dx()/tb.Dx(), 0, mb.Dx()-1)
		my := mb.Min.Y + clampI((c.Y-tb.Min.Y)*mb.Dy()/tb.Dy(), 0, mb.Dy()-1)
		if color.GrayModel.Convert(mask.At(mx, my)).(color.Gray).Y > 127 {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, core.ErrNoTargetFace
	}
	return out, nil
}

// outputCanvas resamples the target into the output raster: with a format, a cover crop
// of the format's size centred on the chosen faces (never stretched); without, the
// target's own size capped to maxOutputSide. place maps a target-space frame onto it.
func outputCanvas(target image.Image, faces []core.Face, f core.Format) (*image.RGBA, func(frame) frame, error) {
	tb := target.Bounds()
	tw, th := float64(tb.Dx()), float64(tb.Dy())
	var w, h int
	crop := tb
	if f == "" {
		k := math.Min(1, maxOutputSide/math.Max(tw, th))
		w, h = max(1, int(math.Round(tw*k))), max(1, int(math.Round(th*k)))
	} else {
		var ok bool
		if w, h, ok = f.Size(); !ok {
			return nil, nil, fmt.Errorf("faces: unknown format %q", f)
		}
		crop = coverCrop(tb, float64(w)/float64(h), facesCentre(faces))
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if crop.Dx() == w && crop.Dy() == h {
		xdraw.Copy(dst, image.Point{}, target, crop, xdraw.Src, nil)
	} else {
		xdraw.BiLinear.Scale(dst, dst.Bounds(), target, crop, xdraw.Src, nil)
	}
	sx, sy := float64(w)/float64(crop.Dx()), float64(h)/float64(crop.Dy())
	place := func(fr frame) frame {
		fr.mx = (fr.mx - float64(crop.Min.X)) * sx
		fr.my = (fr.my - float64(crop.Min.Y)) * sy
		fr.d *= (sx + sy) / 2
		return fr
	}
	return dst, place, nil
}

// coverCrop is the largest rectangle of aspect ratio aspect (w/h) inside b, centred on c
// as far as b allows.
func coverCrop(b image.Rectangle, aspect float64, c image.Point) image.Rectangle {
	w, h := b.Dx(), b.Dy()
	if float64(w)/float64(h) > aspect {
		w = max(1, int(math.Round(float64(h)*aspect)))
	} else {
		h = max(1, int(math.Round(float64(w)/aspect)))
	}
	x0 := clampI(c.X-w/2, b.Min.X, b.Max.X-w)
	y0 := clampI(c.Y-h/2, b.Min.Y, b.Max.Y-h)
	return image.Rect(x0, y0, x0+w, y0+h)
}

// facesCentre is the centre of the union of the faces' boxes.
func facesCentre(faces []core.Face) image.Point {
	u := faces[0].Box
	for _, f := range faces[1:] {
		u = u.Union(f.Box)
	}
	return u.Min.Add(u.Max).Div(2)
}
