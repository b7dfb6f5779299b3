package builtin

import (
	"image"
	"image/color"
	"math"
	"sort"
	"sync"
)

// stepBackground paints the generated background (gradient, focal glow and motif) at
// half of dst's size and returns it, for render to upscale with upscale2x. The
// background is soft (gradients, glows, translucent shapes), so drawing it at half size
// changes nothing visible while the rasterizing and blending cost a quarter; everything
// drawn on top stays full size.
func stepBackground(dst image.Rectangle, p *plan, lay layout, r *rng, variant int) *image.RGBA {
	th := p.theme
	small := newHalf(dst)
	focus := lay.focus.Div(2)
	gradient(small, th.top, th.bottom, th.second, focus, float64(p.h)*0.55/2, int(p.seed>>8)+variant)
	m := th.motif
	if variant >= 2 { // later candidates try a different decoration
		m = motif((int(m) + variant) % int(motifCount))
	}
	drawMotif(small, th, m, r, focus, 0.5)
	return small
}

// halfPool recycles half-size backgrounds: gradient overwrites every pixel, so a
// reused buffer needs no zeroing, and a render does not pay for a fresh 0.9 MB.
var halfPool sync.Pool

// newHalf returns an image of half r's size (rounded up), its pixels undefined.
func newHalf(r image.Rectangle) *image.RGBA {
	b := image.Rect(0, 0, (r.Dx()+1)/2, (r.Dy()+1)/2)
	n := 4 * b.Dx() * b.Dy()
	if img, ok := halfPool.Get().(*image.RGBA); ok && cap(img.Pix) >= n {
		img.Pix, img.Stride, img.Rect = img.Pix[:n], 4*b.Dx(), b
		return img
	}
	return image.NewRGBA(b)
}

// halfRect returns the rectangle of a half-size image whose 2x bilinear upscale covers
// every pixel of r: r halved, grown by the one neighbour each output pixel mixes in.
func halfRect(r image.Rectangle) image.Rectangle {
	return image.Rect(r.Min.X/2-1, r.Min.Y/2-1, (r.Max.X+1)/2+1, (r.Max.Y+1)/2+1)
}

// drawArrow draws a bold arrow from the headline toward the focal point (mdl_4 and up).
func drawArrow(dst *image.RGBA, lay layout, c color.RGBA) {
	h := float64(dst.Rect.Dy())
	tx := float64(lay.text.Min.X+lay.text.Max.X) / 2
	ty := float64(lay.text.Max.Y)
	fx, fy := float64(lay.focus.X), float64(lay.focus.Y)
	if lay.text.Max.Y > dst.Rect.Dy()*6/10 { // headline at the bottom: start from its top
		ty = float64(lay.text.Min.Y)
	}
	if lay.align != 0 { // side layouts: start beside the headline, low down
		tx = float64(lay.text.Max.X)
		if lay.align > 0 {
			tx = float64(lay.text.Min.X)
		}
		ty = h * 0.82
	}
	// Stop short of the focus so the arrow points at the subject without covering it.
	dx, dy := fx-tx, fy-ty
	l := math.Hypot(dx, dy)
	if l < h*0.45 { // too short for a shaft: the head alone would be a stray triangle
		return
	}
	ex, ey := tx+dx*(1-h*0.3/l), ty+dy*(1-h*0.3/l)
	sx, sy := tx+dx*0.12, ty+dy*0.12
	var p path
	p.poly(thickLine(sx, sy, ex, ey, h*0.022)...)
	p.poly(arrowHead(ex+dx/l*h*0.04, ey+dy/l*h*0.04, sx, sy, h*0.08)...)
	p.fill(dst, rgb(0, 0, 0), 0.5)
	p.poly(thickLine(sx-3, sy-3, ex-3, ey-3, h*0.022)...)
	p.poly(arrowHead(ex+dx/l*h*0.04-3, ey+dy/l*h*0.04-3, sx, sy, h*0.08)...)
	p.fill(dst, brighten(c, 0.5), 1)
}

// hsvVivid returns c with its saturation and value raised, for accents taken from photos.
func hsvVivid(c color.RGBA) color.RGBA {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	h := 0.0
	if d := mx - mn; d > 0 {
		switch mx {
		case r:
			h = 60 * modf((g-b)/d+6, 6)
		case g:
			h = 60 * ((b-r)/d + 2)
		default:
			h = 60 * ((r-g)/d + 4)
		}
	}
	return hsv(h, 0.8, 1)
}

// sortByLuma returns a copy of pal ordered dark to light.
func sortByLuma(pal []color.RGBA) []color.RGBA {
	out := append([]color.RGBA(nil), pal...)
	sort.SliceStable(out, func(i, j int) bool {
		return relLuminance(out[i].R, out[i].G, out[i].B) < relLuminance(out[j].R, out[j].G, out[j].B)
	})
	return out
}
