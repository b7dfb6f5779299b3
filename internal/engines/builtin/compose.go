package builtin

import (
	"image"
	"image/color"
	"math"
)

// drawCard composites img as an inset card of about height h centred at c, with a white
// border and a soft shadow, and returns the rectangle the picture occupies.
func drawCard(dst *image.RGBA, img image.Image, c image.Point, h int) image.Rectangle {
	b := img.Bounds()
	cw := h * b.Dx() / max(1, b.Dy())
	cw = min(cw, dst.Rect.Dx()*40/100)
	ch := min(h, cw*b.Dy()/max(1, b.Dx()))
	pic := image.Rect(c.X-cw/2, c.Y-ch/2, c.X-cw/2+cw, c.Y-ch/2+ch)
	// Keep the card inside the canvas.
	pic = pic.Add(image.Pt(max(0, 12-pic.Min.X)+min(0, dst.Rect.Max.X-12-pic.Max.X), max(0, 12-pic.Min.Y)+min(0, dst.Rect.Max.Y-12-pic.Max.Y)))
	border := max(4, h/40)
	for i := 6; i >= 1; i-- {
		fillRect(dst, pic.Inset(-border-i*2).Add(image.Pt(i*2, i*3)), rgb(0, 0, 0), 0.09)
	}
	fillRect(dst, pic.Inset(-border), rgb(255, 255, 255), 1)
	scaled := resize(img, pic.Dx(), pic.Dy())
	for y := 0; y < pic.Dy(); y++ {
		if pic.Min.Y+y < 0 || pic.Min.Y+y >= dst.Rect.Max.Y {
			continue
		}
		x0, x1 := max(0, -pic.Min.X), min(pic.Dx(), dst.Rect.Max.X-pic.Min.X)
		if x1 > x0 {
			copy(dst.Pix[dst.PixOffset(pic.Min.X+x0, pic.Min.Y+y):], scaled.Pix[y*scaled.Stride+4*x0:y*scaled.Stride+4*x1])
		}
	}
	return pic
}

// pasteFace places a face crop of height h centred at c through a feathered ellipse, over
// a soft accent glow that separates it from the background; returns the face rectangle.
func pasteFace(dst *image.RGBA, face image.Image, c image.Point, h int, glow color.RGBA) image.Rectangle {
	b := face.Bounds()
	w := h * b.Dx() / max(1, b.Dy())
	r := image.Rect(c.X-w/2, c.Y-h/2, c.X-w/2+w, c.Y-h/2+h)
	fillCircle(dst, float64(c.X), float64(c.Y), float64(h)*0.75, glow, 0.6, true)
	scaled := resize(face, w, h)
	rx, ry := float64(w)*0.46, float64(h)*0.5
	const feather = 0.18
	for y := 0; y < h; y++ {
		dy := (float64(y) + 0.5 - float64(h)/2) / ry
		oy := r.Min.Y + y
		if oy < 0 || oy >= dst.Rect.Max.Y {
			continue
		}
		for x := 0; x < w; x++ {
			ox := r.Min.X + x
			if ox < 0 || ox >= dst.Rect.Max.X {
				continue
			}
			dx := (float64(x) + 0.5 - float64(w)/2) / rx
			d := math.Sqrt(dx*dx + dy*dy)
			a := clamp((1-d)/feather, 0, 1)
			if a <= 0 {
				continue
			}
			s := scaled.Pix[y*scaled.Stride+4*x:]
			blendPix(dst.Pix[dst.PixOffset(ox, oy):], rgb(s[0], s[1], s[2]), a)
		}
	}
	return r.Intersect(dst.Rect)
}
