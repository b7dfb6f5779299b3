package engine

import (
	"image"
	"image/color"
)

// textStyle is how a headline is drawn.
type textStyle int

const (
	styleStroke textStyle = iota // bright text, dark outline and shadow, scrim when needed
)

const minContrast = 4.8 // WCAG asks 4.5; the margin absorbs antialiasing and JPEG

// drawHeadline renders the laid-out headline onto dst and returns the text mask (canvas
// sized): the pixels that are text, which tests use to measure contrast.
func (e *Engine) drawHeadline(dst *image.RGBA, l textLayout, st textStyle, accent color.RGBA) *image.Alpha {
	mask := image.NewAlpha(dst.Rect)
	for _, ln := range l.lines {
		e.fonts.drawText(mask, l.fallback, l.size, ln.text, ln.x, ln.base)
	}
	white := rgb(255, 255, 255)
	hi := brighten(accent, 0.6)
	stroke := max(2, l.size/22)
	region := l.ink.Inset(-(stroke + l.size/6)).Intersect(dst.Rect)
	lmin := relLuminance(white.R, white.G, white.B)
	for _, ln := range l.lines {
		if ln.highlight {
			lmin = min(lmin, relLuminance(hi.R, hi.G, hi.B))
		}
	}
	scrim(dst, region, (lmin+0.05)/minContrast-0.05, l.size/3)
	outline := dilate(mask, l.ink.Inset(-stroke*2).Intersect(dst.Rect), stroke)
	shadow := image.Pt(stroke, stroke+stroke/2)
	compositeOffset(dst, outline, region, rgb(0, 0, 0), 0.55, shadow)
	compositeOffset(dst, outline, region, rgb(0, 0, 0), 1, image.Point{})
	for _, ln := range l.lines {
		c := white
		if ln.highlight {
			c = hi
		}
		composite(dst, mask, ln.ink.Inset(-2), c)
	}
	return mask
}

// brighten mixes c toward white until its relative luminance reaches at least minL, so a
// highlight colour stays readable on the darkened scrim.
func brighten(c color.RGBA, minL float64) color.RGBA {
	for t := 0.0; t <= 1; t += 0.05 {
		m := rgb(clamp8(float64(c.R)+(255-float64(c.R))*t), clamp8(float64(c.G)+(255-float64(c.G))*t), clamp8(float64(c.B)+(255-float64(c.B))*t))
		if relLuminance(m.R, m.G, m.B) >= minL {
			return m
		}
	}
	return rgb(255, 255, 255)
}

// composite paints colour c through mask within r.
func composite(dst *image.RGBA, mask *image.Alpha, r image.Rectangle, c color.RGBA) {
	compositeOffset(dst, mask, r, c, 1, image.Point{})
}

// compositeOffset paints c through mask shifted by off, with overall alpha a.
func compositeOffset(dst *image.RGBA, mask *image.Alpha, r image.Rectangle, c color.RGBA, a float64, off image.Point) {
	r = r.Intersect(dst.Rect).Intersect(mask.Rect.Add(off))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		mrow := mask.Pix[mask.PixOffset(r.Min.X-off.X, y-off.Y):]
		drow := dst.Pix[dst.PixOffset(r.Min.X, y):]
		for x := 0; x < r.Dx(); x++ {
			if m := mrow[x]; m != 0 {
				blendPix(drow[4*x:], c, a*float64(m)/255)
			}
		}
	}
}

// dilate returns mask grown by radius r within area (a square structuring element), built
// from shifted maxima so the cost does not grow with r.
func dilate(mask *image.Alpha, area image.Rectangle, r int) *image.Alpha {
	out := image.NewAlpha(mask.Rect)
	w, h := area.Dx(), area.Dy()
	buf := make([]uint8, w*h)
	tmp := make([]uint8, max(w, h))
	for y := range h {
		copy(buf[y*w:(y+1)*w], mask.Pix[mask.PixOffset(area.Min.X, area.Min.Y+y):])
	}
	line := func(get func(i int) *uint8, n int) {
		for i := range n {
			tmp[i] = *get(i)
		}
		for i := range n {
			m := uint8(0)
			for j := max(0, i-r); j <= min(n-1, i+r); j += max(1, r/2) {
				m = max(m, tmp[j])
			}
			m = max(m, tmp[min(n-1, i+r)], tmp[max(0, i-r)])
			*get(i) = m
		}
	}
	for y := range h {
		line(func(i int) *uint8 { return &buf[y*w+i] }, w)
	}
	for x := range w {
		line(func(i int) *uint8 { return &buf[i*w+x] }, h)
	}
	for y := range h {
		copy(out.Pix[out.PixOffset(area.Min.X, area.Min.Y+y):], buf[y*w:(y+1)*w])
	}
	return out
}
