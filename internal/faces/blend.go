package faces

import (
	"image"
	"math"
)

// Feathered elliptical blending: alpha is 1 inside featherStart of the ellipse radius and
// falls smoothly (smoothstep) to 0 at its border, so the pasted face fades into the
// background over a band wide enough to hide differences in lighting and texture.
const featherStart = 0.7

func featherAlpha(rho float64) float64 {
	switch {
	case rho <= featherStart:
		return 1
	case rho >= 1:
		return 0
	}
	t := (1 - rho) / (1 - featherStart)
	return t * t * (3 - 2*t)
}

// blendFace pastes the face of src (located by srcFr) over the face of dst located by
// dstFr: each dst pixel in the face ellipse is mapped through the two frames (a
// similarity transform: rotation, scale, translation), sampled bilinearly, colour-mapped
// by tr and mixed in by the feathered alpha.
func blendFace(dst *image.RGBA, dstFr frame, src *image.RGBA, srcFr frame, tr transfer) {
	r := dstFr.ellipseBounds(1).Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			u, v := dstFr.toCanon(float64(x)+0.5, float64(y)+0.5)
			a := featherAlpha(ellipseRadius(u, v))
			if a == 0 {
				continue
			}
			sx, sy := srcFr.toImage(u, v)
			sr, sg, sb := tr.apply(bilinear(src, sx, sy))
			p := dst.Pix[dst.PixOffset(x, y):]
			p[0] = clamp8(a*sr + (1-a)*float64(p[0]))
			p[1] = clamp8(a*sg + (1-a)*float64(p[1]))
			p[2] = clamp8(a*sb + (1-a)*float64(p[2]))
		}
	}
}

// pasteRadius is the normalised radius of the oval PasteFace keeps (0.5 touches the sides).
const pasteRadius = 0.47

// PasteFace composites face, scaled to a size x size square centred at centre, onto dst
// through a feathered oval, without colour matching (a persona keeps its own skin tone).
// face is expected in AlignedCrop's layout, so the oval holds the face with hair and chin;
// a non-square face is cover-scaled, never stretched. Pixels outside dst are skipped.
func PasteFace(dst *image.RGBA, face image.Image, centre image.Point, size int) {
	if size <= 0 || face.Bounds().Empty() {
		return
	}
	src := toRGBA(face)
	fw, fh := float64(src.Rect.Dx()), float64(src.Rect.Dy())
	scale := math.Min(fw, fh) / float64(size) // source pixels per destination pixel
	half := float64(size) / 2
	cx, cy := float64(centre.X), float64(centre.Y)
	r := image.Rect(int(cx-half)-1, int(cy-half)-1, int(cx+half)+2, int(cy+half)+2).Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			nx, ny := (float64(x)+0.5-cx)/float64(size), (float64(y)+0.5-cy)/float64(size)
			a := featherAlpha(math.Hypot(nx, ny) / pasteRadius)
			if a == 0 {
				continue
			}
			sr, sg, sb := bilinear(src, fw/2+nx*float64(size)*scale, fh/2+ny*float64(size)*scale)
			p := dst.Pix[dst.PixOffset(x, y):]
			p[0] = clamp8(a*sr + (1-a)*float64(p[0]))
			p[1] = clamp8(a*sg + (1-a)*float64(p[1]))
			p[2] = clamp8(a*sb + (1-a)*float64(p[2]))
			p[3] = clamp8(a*255 + (1-a)*float64(p[3]))
		}
	}
}
