package engine

import (
	"image"
	"image/color"
)

// gradient fills dst with a diagonal two-colour gradient, a soft glow of glowCol at glow
// (the focal point opposite the headline) and a vignette, in one pass over the pixels.
func gradient(dst *image.RGBA, top, bottom, glowCol color.RGBA, glow image.Point, glowR float64, angle int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	// Gradient direction: 0 vertical, 1 diagonal down-right, 2 diagonal down-left.
	var ax, ay float64
	switch angle % 3 {
	case 0:
		ax, ay = 0, 1
	case 1:
		ax, ay = 0.6, 0.8
	default:
		ax, ay = -0.6, 0.8
	}
	span := abs(ax)*float64(w) + ay*float64(h)
	off := 0.0
	if ax < 0 {
		off = -ax * float64(w)
	}
	cx, cy := float64(w)/2, float64(h)/2
	vr := 1 / (cx*cx + cy*cy)
	gr := 1 / (glowR * glowR)
	tr, tg, tb := float64(top.R), float64(top.G), float64(top.B)
	dr, dg, db := float64(bottom.R)-tr, float64(bottom.G)-tg, float64(bottom.B)-tb
	lr, lg, lb := float64(glowCol.R), float64(glowCol.G), float64(glowCol.B)
	for y := range h {
		row := dst.Pix[y*dst.Stride:]
		fy := float64(y)
		gy := fy - float64(glow.Y)
		vy := fy - cy
		for x := range w {
			fx := float64(x)
			t := (fx*ax + fy*ay + off) / span
			r, g, b := tr+dr*t, tg+dg*t, tb+db*t
			gx := fx - float64(glow.X)
			if k := 1 - (gx*gx+gy*gy)*gr; k > 0 {
				k = k * k * 0.75
				r += (lr - r) * k
				g += (lg - g) * k
				b += (lb - b) * k
			}
			vx := fx - cx
			v := 1 - 0.45*(vx*vx+vy*vy)*vr
			p := row[4*x : 4*x+4 : 4*x+4]
			p[0], p[1], p[2], p[3] = clamp8(r*v), clamp8(g*v), clamp8(b*v), 255
		}
	}
}
