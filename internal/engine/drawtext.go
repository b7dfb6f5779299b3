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

// drawHeadline renders the laid-out headline onto dst and returns the text mask (it
// covers the headline's surroundings, not the whole canvas): the pixels that are text,
// which tests use to measure contrast.
func (e *Engine) drawHeadline(dst *image.RGBA, l textLayout, st textStyle, accent color.RGBA) *image.Alpha {
	s := headlineScrim(l, accent, dst.Rect)
	scrim(dst, s.region, s.lmax, s.feather)
	return e.inkHeadline(dst, l, st, accent)
}

// scrimSpec is where and how far a headline's scrim darkens the background.
type scrimSpec struct {
	region  image.Rectangle
	lmax    float64
	feather int
}

// headlineScrim returns the scrim that gives headline l its contrast on a canvas of
// bounds b: the background around the text goes no brighter than the darkest text
// colour allows at minContrast.
func headlineScrim(l textLayout, accent color.RGBA, b image.Rectangle) scrimSpec {
	stroke := max(2, l.size/22)
	lmin := relLuminance(255, 255, 255)
	hi := brighten(accent, 0.6)
	for _, ln := range l.lines {
		if ln.highlight {
			lmin = min(lmin, relLuminance(hi.R, hi.G, hi.B))
		}
	}
	return scrimSpec{
		region:  l.ink.Inset(-(stroke + l.size/6)).Intersect(b),
		lmax:    (lmin+0.05)/minContrast - 0.05,
		feather: l.size * 2 / 3,
	}
}

// inkHeadline draws the headline's outline, shadow and text over a background already
// scrimmed by headlineScrim, and returns the text mask.
func (e *Engine) inkHeadline(dst *image.RGBA, l textLayout, st textStyle, accent color.RGBA) *image.Alpha {
	white := rgb(255, 255, 255)
	hi := brighten(accent, 0.6)
	stroke := max(2, l.size/22)
	region := l.ink.Inset(-(stroke + l.size/6)).Intersect(dst.Rect)
	outlineArea := l.ink.Inset(-stroke * 2).Intersect(dst.Rect)
	mask := image.NewAlpha(region.Union(outlineArea))
	for _, ln := range l.lines {
		e.fonts.drawText(mask, l.fallback, l.size, ln.text, ln.x, ln.base)
	}
	outline := dilate(mask, outlineArea, stroke)
	shadow := image.Pt(stroke, stroke+stroke/2)
	darken(dst, outline, region, shadow)
	for _, ln := range l.lines {
		c := white
		if ln.highlight {
			c = hi
		}
		composite(dst, mask, ln.ink.Inset(-2), c)
	}
	return mask
}

// darken paints the outline black at full strength and its copy shifted by shadow at
// 55 %, in one pass over r (the shadow first, as if drawn underneath).
func darken(dst *image.RGBA, outline *image.Alpha, r image.Rectangle, shadow image.Point) {
	r = r.Intersect(dst.Rect).Intersect(outline.Rect.Union(outline.Rect.Add(shadow)))
	ob := outline.Rect
	row := func(y int) []uint8 { // the outline's row y as a slice indexed by x-ob.Min.X
		if y < ob.Min.Y || y >= ob.Max.Y {
			return nil
		}
		return outline.Pix[(y-ob.Min.Y)*outline.Stride : (y-ob.Min.Y)*outline.Stride+ob.Dx()]
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		drow := dst.Pix[dst.PixOffset(r.Min.X, y):]
		orow, srow := row(y), row(y-shadow.Y)
		for x := r.Min.X; x < r.Max.X; x++ {
			var o, s int32
			if i := x - ob.Min.X; i >= 0 && i < len(orow) {
				o = int32(orow[i])
			}
			if i := x - shadow.X - ob.Min.X; i >= 0 && i < len(srow) {
				s = int32(srow[i])
			}
			if o == 0 && s == 0 {
				continue
			}
			// keep = 256 * (1 - 0.55*s) * (1 - o), both masks scaled to 0..255.
			keep := (256 - (141*s+127)/255) * (255 - o) / 255
			p := drow[4*(x-r.Min.X) : 4*(x-r.Min.X)+3 : 4*(x-r.Min.X)+3]
			p[0] = uint8((int32(p[0])*keep + 128) >> 8)
			p[1] = uint8((int32(p[1])*keep + 128) >> 8)
			p[2] = uint8((int32(p[2])*keep + 128) >> 8)
		}
	}
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
	r = r.Intersect(dst.Rect).Intersect(mask.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		mrow := mask.Pix[mask.PixOffset(r.Min.X, y) : mask.PixOffset(r.Min.X, y)+r.Dx()]
		drow := dst.Pix[dst.PixOffset(r.Min.X, y):]
		for x, m := range mrow {
			if m != 0 {
				blend256(drow[4*x:], c, (int32(m)*256+127)/255)
			}
		}
	}
}

// dilate returns mask grown by radius r within area (a square structuring element),
// as an alpha image covering area; pixels outside mask count as empty. Each axis is a
// running maximum over a 2r+1 window (van Herk / Gil-Werman): three comparisons per
// pixel whatever r is.
func dilate(mask *image.Alpha, area image.Rectangle, r int) *image.Alpha {
	out := image.NewAlpha(area)
	w, h := area.Dx(), area.Dy()
	if w <= 0 || h <= 0 {
		return out
	}
	src := mask.Rect.Intersect(area)
	for y := src.Min.Y; y < src.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(src.Min.X, y):out.PixOffset(src.Max.X, y)], mask.Pix[mask.PixOffset(src.Min.X, y):])
	}
	in, left, right := make([]uint8, w), make([]uint8, w+2*r), make([]uint8, w+2*r)
	for y := range h {
		row := out.Pix[y*out.Stride : y*out.Stride+w]
		if !anyNonZero(row) {
			continue
		}
		copy(in, row)
		runMax(row, in, left, right, r)
	}
	colMax(out, w, h, r)
	return out
}

// anyNonZero reports whether s has a non-zero byte.
func anyNonZero(s []uint8) bool {
	for _, v := range s {
		if v != 0 {
			return true
		}
	}
	return false
}

// colMax replaces each pixel of img's w x h area by the maximum over the 2r+1 rows
// around it, with runMax's block scheme applied to whole rows: every step is an
// element-wise maximum of two rows, so memory is read in order.
func colMax(img *image.Alpha, w, h, r int) {
	k, m := 2*r+1, h+2*r
	left, right := make([]uint8, m*w), make([]uint8, m*w)
	for j := range m {
		if y := j - r; y >= 0 && y < h {
			copy(left[j*w:(j+1)*w], img.Pix[y*img.Stride:y*img.Stride+w])
		}
	}
	copy(right, left)
	for b := 0; b < m; b += k {
		e := min(b+k, m)
		for j := b + 1; j < e; j++ {
			maxInto(left[j*w:(j+1)*w], left[(j-1)*w:j*w])
		}
		for j := e - 2; j >= b; j-- {
			maxInto(right[j*w:(j+1)*w], right[(j+1)*w:(j+2)*w])
		}
	}
	for y := range h {
		dst := img.Pix[y*img.Stride : y*img.Stride+w]
		a, c := right[y*w:(y+1)*w], left[(y+2*r)*w:(y+2*r+1)*w]
		for x := range dst {
			dst[x] = max(a[x], c[x])
		}
	}
}

// maxInto sets dst[i] = max(dst[i], src[i]).
func maxInto(dst, src []uint8) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = max(dst[i], src[i])
	}
}

// runMax writes dst[i] = max(src[i-r..i+r]) (clipped to src) using blocks of 2r+1 on
// src padded with r zeros each side: prefix maxima from each block's start (left) and
// suffix maxima from its end (right); any window spans at most two blocks.
func runMax(dst, src, left, right []uint8, r int) {
	n, k := len(src), 2*r+1
	m := n + 2*r
	pad := left[:m] // build the padded input in left, then turn it into prefix maxima
	clear(pad[:r])
	copy(pad[r:], src)
	clear(pad[r+n:])
	right = right[:m]
	copy(right, pad)
	for b := 0; b < m; b += k {
		e := min(b+k, m)
		for i := b + 1; i < e; i++ {
			pad[i] = max(pad[i], pad[i-1])
		}
		for i := e - 2; i >= b; i-- {
			right[i] = max(right[i], right[i+1])
		}
	}
	for i := range n {
		dst[i] = max(right[i], pad[i+2*r])
	}
}
