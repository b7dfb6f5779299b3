package faces

import (
	"image"
	"image/draw"
	"math"

	"thumbforge/internal/core"
)

// A face's canonical frame puts the eye midpoint at the origin, the eyes at (-0.5, 0) and
// (0.5, 0) and v pointing down the face, so one eye distance is one unit. The constants
// below were measured on pigo detections of frontal photographs.
const (
	// The face ellipse (brows to chin, cheek to cheek) used for blending and colour stats.
	ellipseV  = 0.36
	ellipseRU = 1.14
	ellipseRV = 1.43
	// AlignedCrop's square: centred a little below the eyes, wide enough for hair and chin.
	cropV    = 0.21
	cropHalf = 2.3
)

// frame is a similarity transform between a face's canonical frame and image coordinates
// (pixel centres at integer + 0.5).
type frame struct {
	mx, my   float64 // eye midpoint
	cos, sin float64 // eye-line direction
	d        float64 // eye distance
}

// frameOf builds the frame from the eye landmarks, trusting the box over eyes that are
// implausibly close or far apart for its size.
func frameOf(f core.Face) frame {
	lx, ly := float64(f.LeftEye.X)+0.5, float64(f.LeftEye.Y)+0.5
	rx, ry := float64(f.RightEye.X)+0.5, float64(f.RightEye.Y)+0.5
	side := float64(max(1, f.Box.Dx()))
	dx, dy := rx-lx, ry-ly
	d := math.Hypot(dx, dy)
	if d < 0.25*side || d > 0.5*side || dx <= 0 {
		// Fall back to an upright face at the detector's average eye position.
		cx, cy := float64(f.Box.Min.X+f.Box.Max.X)/2, float64(f.Box.Min.Y+f.Box.Max.Y)/2
		return frame{mx: cx, my: cy - 0.075*side, cos: 1, d: 0.35 * side}
	}
	return frame{mx: (lx + rx) / 2, my: (ly + ry) / 2, cos: dx / d, sin: dy / d, d: d}
}

// toImage maps canonical (u, v) to image coordinates.
func (fr frame) toImage(u, v float64) (float64, float64) {
	return fr.mx + fr.d*(fr.cos*u-fr.sin*v), fr.my + fr.d*(fr.sin*u+fr.cos*v)
}

// toCanon maps image coordinates to canonical (u, v).
func (fr frame) toCanon(x, y float64) (float64, float64) {
	dx, dy := (x-fr.mx)/fr.d, (y-fr.my)/fr.d
	return fr.cos*dx + fr.sin*dy, -fr.sin*dx + fr.cos*dy
}

// ellipseRadius is the normalised radius of canonical (u, v) in the face ellipse: 1 on
// its border.
func ellipseRadius(u, v float64) float64 {
	return math.Hypot(u/ellipseRU, (v-ellipseV)/ellipseRV)
}

// ellipseBounds is the image rectangle holding the face ellipse scaled by grow.
func (fr frame) ellipseBounds(grow float64) image.Rectangle {
	r := fr.d * grow * math.Max(ellipseRU, ellipseRV)
	cx, cy := fr.toImage(0, ellipseV)
	return image.Rect(int(cx-r)-1, int(cy-r)-1, int(cx+r)+2, int(cy+r)+2)
}

// AlignedCrop returns a size x size crop of img around face f, rotated so the eyes are
// level and scaled so every face fills the crop the same way: eye midpoint centred
// horizontally at 45% of the height, eye distance 22% of the side, leaving room for
// hair and chin. Pixels outside img repeat its edge. PasteFace expects crops of this
// layout; persona training stores them.
func AlignedCrop(img image.Image, f core.Face, size int) *image.RGBA {
	return alignedCrop(toRGBA(img), frameOf(f), size)
}

func alignedCrop(src *image.RGBA, fr frame, size int) *image.RGBA {
	size = max(1, size)
	dst := image.NewRGBA(image.Rect(0, 0, size, size))
	unit := 2 * cropHalf / float64(size)
	for y := range size {
		v := cropV - cropHalf + (float64(y)+0.5)*unit
		row := dst.Pix[y*dst.Stride:]
		for x := range size {
			u := -cropHalf + (float64(x)+0.5)*unit
			sx, sy := fr.toImage(u, v)
			r, g, b := bilinear(src, sx, sy)
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = clamp8(r), clamp8(g), clamp8(b), 255
		}
	}
	return dst
}

// cropFrame is the frame of a face in an aligned crop of the given size.
func cropFrame(size int) frame {
	d := float64(size) / (2 * cropHalf)
	return frame{mx: float64(size) / 2, my: float64(size)/2 - cropV*d, cos: 1, d: d}
}

// toRGBA returns img as an opaque-ready *image.RGBA with origin (0, 0), converting once
// so per-pixel sampling avoids the image.Image interface.
func toRGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok && m.Bounds().Min == (image.Point{}) {
		return m
	}
	b := img.Bounds()
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Bounds(), img, b.Min, draw.Src)
	return m
}

// bilinear samples m at continuous coordinates (pixel centres at integer + 0.5),
// clamping to the edge.
func bilinear(m *image.RGBA, x, y float64) (float64, float64, float64) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	x, y = x-0.5, y-0.5
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	ix0, iy0 := clampI(int(x0), 0, w-1), clampI(int(y0), 0, h-1)
	ix1, iy1 := clampI(int(x0)+1, 0, w-1), clampI(int(y0)+1, 0, h-1)
	p00 := m.Pix[iy0*m.Stride+4*ix0:]
	p10 := m.Pix[iy0*m.Stride+4*ix1:]
	p01 := m.Pix[iy1*m.Stride+4*ix0:]
	p11 := m.Pix[iy1*m.Stride+4*ix1:]
	w00, w10, w01, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
	mix := func(i int) float64 {
		return w00*float64(p00[i]) + w10*float64(p10[i]) + w01*float64(p01[i]) + w11*float64(p11[i])
	}
	return mix(0), mix(1), mix(2)
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
