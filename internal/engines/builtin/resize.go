package builtin

import (
	"image"
	"image/draw"

	xdraw "golang.org/x/image/draw"
)

// toRGBA returns img as *image.RGBA with origin (0,0), converting only when needed. The
// result may share pixels with img: callers that modify it must clone first.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, img, b.Min, draw.Src)
	return dst
}

// cloneRGBA returns a private copy of img with origin (0,0).
func cloneRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		b := r.Rect
		dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := 0; y < b.Dy(); y++ {
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*b.Dx()], r.Pix[r.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return dst
	}
	return toRGBA(img)
}

// resizeRect scales the src rectangle of img to a new w x h RGBA image. Large reductions
// go through ApproxBiLinear to twice the size then a 2x2 box average: nearly as fast as
// ApproxBiLinear alone (CatmullRom is ~15x slower on 4000x3000) without its aliasing.
func resizeRect(img image.Image, src image.Rectangle, w, h int) *image.RGBA {
	if y, ok := img.(*image.YCbCr); ok && supportedChroma(y.SubsampleRatio) && src.In(y.Rect) {
		if src.Dx() > 3*w && src.Dy() > 3*h {
			dst := image.NewRGBA(image.Rect(0, 0, w, h))
			halve(dst, resizeYCbCr(y, src, 2*w, 2*h))
			return dst
		}
		return resizeYCbCr(y, src, w, h)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if src.Dx() > 3*w && src.Dy() > 3*h {
		mid := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
		xdraw.ApproxBiLinear.Scale(mid, mid.Rect, img, src, xdraw.Src, nil)
		halve(dst, mid)
		return dst
	}
	xdraw.ApproxBiLinear.Scale(dst, dst.Rect, img, src, xdraw.Src, nil)
	return dst
}

// halve writes the 2x2 box average of src (exactly twice dst's size) into dst.
func halve(dst, src *image.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	for y := range h {
		a := src.Pix[2*y*src.Stride:]
		b := src.Pix[(2*y+1)*src.Stride:]
		d := dst.Pix[y*dst.Stride:]
		for x := range w {
			i, o := 8*x, 4*x
			for c := range 4 {
				d[o+c] = uint8((int(a[i+c]) + int(a[i+4+c]) + int(b[i+c]) + int(b[i+4+c]) + 2) >> 2)
			}
		}
	}
}

// resize scales a whole image to w x h.
func resize(img image.Image, w, h int) *image.RGBA { return resizeRect(img, img.Bounds(), w, h) }

// coverRect returns the largest rectangle of aspect w:h inside b, centred on c as far as
// the bounds allow: the crop that fills the output without stretching.
func coverRect(b image.Rectangle, w, h int, c image.Point) image.Rectangle {
	cw, ch := b.Dx(), b.Dy()
	if cw*h > ch*w { // source wider than target
		cw = ch * w / h
	} else {
		ch = cw * h / w
	}
	x0 := min(max(c.X-cw/2, b.Min.X), b.Max.X-cw)
	y0 := min(max(c.Y-ch/2, b.Min.Y), b.Max.Y-ch)
	return image.Rect(x0, y0, x0+cw, y0+ch)
}

// fitSize returns w x h scaled so its longest side is at most limit.
func fitSize(w, h, limit int) (int, int) {
	if w <= limit && h <= limit {
		return w, h
	}
	if w >= h {
		return limit, max(1, h*limit/w)
	}
	return max(1, w*limit/h), limit
}

// supportedChroma reports the subsample ratios resizeYCbCr handles (all JPEG gives but
// 4:1:1 and 4:1:0).
func supportedChroma(r image.YCbCrSubsampleRatio) bool {
	switch r {
	case image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440:
		return true
	}
	return false
}
