package builtin

import (
	"image"
	"math"
)

// drawMotif decorates the background with the theme's shapes. focus is the focal point
// opposite the headline, where radial motifs centre. px is the size of an output pixel
// on dst (0.5 when drawing at half size): sizes given in pixels, not relative to the
// canvas, scale by it so the motif looks the same at any drawing size.
func drawMotif(dst *image.RGBA, th theme, m motif, r *rng, focus image.Point, px float64) {
	w, h := float64(dst.Rect.Dx()), float64(dst.Rect.Dy())
	fx, fy := float64(focus.X), float64(focus.Y)
	var p path
	switch m {
	case motifWaves:
		bands := make([]band, 4)
		for i := range bands {
			base := h * (0.55 + 0.11*float64(i))
			amp := h * r.rangef(0.025, 0.06)
			freq := r.rangef(1.5, 3.5) * 2 * math.Pi / w
			phase := r.rangef(0, 2*math.Pi)
			top := make([]float64, dst.Rect.Dx())
			for x := range top {
				top[x] = base + amp*math.Sin((float64(x)+0.5)*freq+phase)
			}
			c := th.second
			if i%2 == 1 {
				c = th.accent
			}
			bands[i] = band{top: top, c: c, a: 0.16 + 0.05*float64(i)}
		}
		fillBands(dst, bands)
	case motifBurst:
		n := 18 + r.intn(8)
		rot := r.rangef(0, math.Pi)
		R := 2 * math.Hypot(w, h)
		for i := range n {
			a0 := rot + 2*math.Pi*float64(i)/float64(n)
			a1 := a0 + math.Pi/float64(n)
			p.poly(vec{fx, fy}, vec{fx + R*math.Cos(a0), fy + R*math.Sin(a0)}, vec{fx + R*math.Cos(a1), fy + R*math.Sin(a1)})
		}
		p.fill(dst, th.accent, 0.18)
		fillCircle(dst, fx, fy, h*0.45, th.accent, 0.55, true)
	case motifBars:
		n := 6 + r.intn(3)
		bw := w * 0.5 / float64(n)
		x0 := fx - w*0.25
		for i := range n {
			bh := h * (0.12 + 0.6*float64(i+1)/float64(n) + r.rangef(-0.05, 0.05))
			x := x0 + float64(i)*bw
			p.poly(vec{x + bw*0.12, h}, vec{x + bw*0.12, h - bh}, vec{x + bw*0.88, h - bh}, vec{x + bw*0.88, h})
		}
		p.fill(dst, th.accent, 0.28)
		// A rising arrow over the bars.
		// The arrow tops out a quarter height above the focus, clear of a headline band.
		ax0, ay0, ax1, ay1 := x0, h*0.8, x0+float64(n)*bw, math.Max(h*0.12, fy-h*0.25)
		p.poly(thickLine(ax0, ay0, ax1, ay1, h*0.018)...)
		p.poly(arrowHead(ax1, ay1, ax0, ay0, h*0.07)...)
		p.fill(dst, th.second, 0.9)
	case motifGrid:
		step, lw := h/12, 1.5*px
		for x := math.Mod(r.rangef(0, step), step); x < w; x += step {
			p.poly(vec{x, 0}, vec{x + lw, 0}, vec{x + lw, h}, vec{x, h})
		}
		for y := math.Mod(r.rangef(0, step), step); y < h; y += step {
			p.poly(vec{0, y}, vec{w, y}, vec{w, y + lw}, vec{0, y + lw})
		}
		p.fill(dst, th.accent, 0.14)
		for range 14 {
			cx := math.Round(r.rangef(0, w)/step) * step
			cy := math.Round(r.rangef(0, h)/step) * step
			fillCircle(dst, cx, cy, step*0.5, th.accent, 0.45, true)
			fillCircle(dst, cx, cy, 3*px, th.accent, 0.9, false)
		}
	case motifStars:
		for range 160 {
			fillCircle(dst, r.rangef(0, w), r.rangef(0, h), r.rangef(0.6, 2.2)*px, th.second, r.rangef(0.4, 1), false)
		}
		for range 6 {
			fillCircle(dst, r.rangef(0, w), r.rangef(0, h), r.rangef(8, 22)*px, th.second, 0.35, true)
		}
		fillCircle(dst, fx, fy, h*0.3, th.accent, 0.35, false)
		fillCircle(dst, fx-h*0.06, fy-h*0.06, h*0.22, th.second, 0.18, true)
	case motifStripes:
		n := 7
		for i := range n {
			x := w*0.1 + float64(i)*w/float64(n)*1.1
			sw := w * r.rangef(0.02, 0.06)
			p.poly(vec{x, 0}, vec{x + sw, 0}, vec{x + sw - h*0.5, h}, vec{x - h*0.5, h})
		}
		p.fill(dst, th.accent, 0.2)
		fillCircle(dst, fx, fy, h*0.5, th.second, 0.45, true)
	case motifMountains:
		fillCircle(dst, fx, h*0.38, h*0.16, th.accent, 0.85, false)
		fillCircle(dst, fx, h*0.38, h*0.32, th.accent, 0.35, true)
		for layer := range 3 {
			base := h * (0.62 + 0.12*float64(layer))
			pts := []vec{{0, h}, {0, base}}
			x := 0.0
			for x < w {
				x += r.rangef(w*0.08, w*0.2)
				pts = append(pts, vec{x, base - r.rangef(h*0.05, h*0.22)})
				x += r.rangef(w*0.05, w*0.12)
				pts = append(pts, vec{x, base + r.rangef(0, h*0.04)})
			}
			pts = append(pts, vec{w, h})
			p.poly(pts...)
			p.fill(dst, th.top, 0.45+0.2*float64(layer))
		}
	case motifRings:
		for i := range 6 {
			rad := h * (0.12 + 0.1*float64(i))
			p.circle(fx, fy, rad, false)
			p.circle(fx, fy, rad-h*0.012, true)
		}
		p.fill(dst, th.accent, 0.35)
		fillCircle(dst, fx, fy, h*0.35, th.second, 0.4, true)
	case motifChevrons:
		s := h * 0.16
		for i := range 5 {
			x := fx - 2.5*s + float64(i)*s
			p.poly(vec{x, fy - s}, vec{x + s*0.45, fy - s}, vec{x + s*1.2, fy}, vec{x + s*0.45, fy + s}, vec{x, fy + s}, vec{x + s*0.75, fy})
		}
		p.fill(dst, th.accent, 0.45)
		fillCircle(dst, fx, fy, h*0.5, th.second, 0.35, true)
	case motifDrips:
		for x := 0.0; x < w; x += r.rangef(w*0.03, w*0.07) {
			dw := r.rangef(w*0.01, w*0.025)
			dl := r.rangef(h*0.04, h*0.25)
			p.poly(vec{x, 0}, vec{x + dw, 0}, vec{x + dw, dl}, vec{x, dl})
			p.circle(x+dw/2, dl, dw/2, false)
		}
		p.fill(dst, th.second, 0.85)
		fillCircle(dst, fx, fy, h*0.4, th.accent, 0.3, true)
	default: // motifBokeh
		for range 26 {
			c := th.accent
			if r.intn(2) == 0 {
				c = th.second
			}
			fillCircle(dst, r.rangef(0, w), r.rangef(0, h), r.rangef(h*0.03, h*0.14), c, r.rangef(0.12, 0.35), r.intn(3) > 0)
		}
		fillCircle(dst, fx, fy, h*0.45, th.accent, 0.35, true)
	}
}

// thickLine returns the quad of a line of width t.
func thickLine(x0, y0, x1, y1, t float64) []vec {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	nx, ny := -dy/l*t/2, dx/l*t/2
	return []vec{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x1 - nx, y1 - ny}, {x0 - nx, y0 - ny}}
}

// arrowHead returns a triangle pointing at (x,y), coming from (fromX,fromY).
func arrowHead(x, y, fromX, fromY, s float64) []vec {
	dx, dy := x-fromX, y-fromY
	l := math.Hypot(dx, dy)
	ux, uy := dx/l, dy/l
	bx, by := x-ux*s, y-uy*s
	return []vec{{x + ux*s*0.3, y + uy*s*0.3}, {bx - uy*s*0.6, by + ux*s*0.6}, {bx + uy*s*0.6, by - ux*s*0.6}}
}
