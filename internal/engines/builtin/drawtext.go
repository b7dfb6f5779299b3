package builtin

import (
	"encoding/binary"
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
// 55 %, within r (the shadow first, as if drawn underneath). Each pass visits only the
// span of a mask row between its first and last covered pixel, which for a headline is
// a fraction of r; the scale factors come from 256-entry tables.
func darken(dst *image.RGBA, outline *image.Alpha, r image.Rectangle, shadow image.Point) {
	var shadowKeep, outlineKeep [256]int32 // 256 * (1 - 0.55*s) and 256 * (1 - o)
	for i := range int32(256) {
		shadowKeep[i] = 256 - (141*i+127)/255
		outlineKeep[i] = ((255-i)*256 + 127) / 255
	}
	darkenPass(dst, outline, r, shadow, &shadowKeep)
	darkenPass(dst, outline, r, image.Point{}, &outlineKeep)
}

// darkenPass scales the pixels under mask (shifted by off) within r by keep[m]/256.
func darkenPass(dst *image.RGBA, mask *image.Alpha, r image.Rectangle, off image.Point, keep *[256]int32) {
	mb := mask.Rect.Add(off)
	r = r.Intersect(dst.Rect).Intersect(mb)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		o := (y-mb.Min.Y)*mask.Stride + r.Min.X - mb.Min.X
		mrow := mask.Pix[o : o+r.Dx()]
		lo, hi := 0, len(mrow)
		for lo < hi && mrow[lo] == 0 {
			lo++
		}
		for hi > lo && mrow[hi-1] == 0 {
			hi--
		}
		if lo == hi {
			continue
		}
		drow := dst.Pix[dst.PixOffset(r.Min.X+lo, y):dst.PixOffset(r.Min.X+hi, y)]
		for x, m := range mrow[lo:hi] {
			if m == 0 {
				continue
			}
			k := keep[m]
			p := drow[4*x : 4*x+3 : 4*x+3]
			p[0] = uint8((int32(p[0])*k + 128) >> 8)
			p[1] = uint8((int32(p[1])*k + 128) >> 8)
			p[2] = uint8((int32(p[2])*k + 128) >> 8)
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
		copy(dst, right[y*w:(y+1)*w])
		maxInto(dst, left[(y+2*r)*w:(y+2*r+1)*w])
	}
}

// maxInto sets dst[i] = max(dst[i], src[i]), eight bytes at a time: for each byte, the
// top bit of (a|0x80) - (b&0x7f) says whether a's low seven bits reach b's, which with
// the top bits of a and b gives a >= b; that bit spread over the byte selects a or b.
func maxInto(dst, src []uint8) {
	const hi, lo7 = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	src = src[:len(dst)]
	n := len(dst) &^ 7
	for i := 0; i < n; i += 8 {
		a, b := binary.LittleEndian.Uint64(dst[i:]), binary.LittleEndian.Uint64(src[i:])
		if a|b == 0 { // most of a headline's surroundings
			continue
		}
		d := (a | hi) - (b & lo7)
		ge := (a&^b | ^(a^b)&d) & hi
		sel := ge >> 7 * 0xff
		binary.LittleEndian.PutUint64(dst[i:], a&sel|b&^sel)
	}
	for i := n; i < len(dst); i++ {
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
