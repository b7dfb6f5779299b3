package builtin

import (
	"image"
	"image/color"
	"math"
)

// applyOp runs one pixel edit in place.
func (e *Engine) applyOp(img *image.RGBA, op Op) {
	switch op.Kind {
	case OpBrightness:
		// A gamma curve brightens mid-tones without clipping highlights.
		g := math.Pow(1.35, -op.Amount)
		applyLUT(img, func(v float64) float64 { return 255 * math.Pow(v/255, g) })
	case OpContrast:
		k := 1 + 0.3*op.Amount
		if op.Amount < 0 {
			k = 1 / (1 - 0.3*op.Amount)
		}
		applyLUT(img, func(v float64) float64 { return (v-128)*k + 128 })
	case OpSaturation:
		k := 1 + 0.45*op.Amount
		if op.Amount < 0 {
			k = max(0, 1+0.35*op.Amount)
		}
		saturate(img, k)
	case OpGrayscale:
		saturate(img, 0)
	case OpTemperature:
		d := 18 * op.Amount
		for i := 0; i+3 < len(img.Pix); i += 4 {
			img.Pix[i] = clamp8(float64(img.Pix[i]) + d)
			img.Pix[i+1] = clamp8(float64(img.Pix[i+1]) + d*0.25)
			img.Pix[i+2] = clamp8(float64(img.Pix[i+2]) - d)
		}
	case OpVignette:
		vignette(img, 0.45*op.Amount)
	case OpSharpen:
		sharpen(img, 0.8*op.Amount)
	case OpBlurBackground:
		blurBackground(img, e.subject(img), op.Amount)
	case OpBackgroundColor:
		replaceBackground(img, e.subject(img), op.Color)
	}
}

// applyLUT maps every colour channel through f (given and returning 0..255).
func applyLUT(img *image.RGBA, f func(float64) float64) {
	var lut [256]uint8
	for i := range lut {
		lut[i] = clamp8(f(float64(i)))
	}
	for i := 0; i+3 < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2] = lut[img.Pix[i]], lut[img.Pix[i+1]], lut[img.Pix[i+2]]
	}
}

// saturate scales each pixel's distance from its grey by k (0 gives black and white).
func saturate(img *image.RGBA, k float64) {
	for i := 0; i+3 < len(img.Pix); i += 4 {
		p := img.Pix[i : i+3 : i+3]
		l := 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
		p[0] = clamp8(l + (float64(p[0])-l)*k)
		p[1] = clamp8(l + (float64(p[1])-l)*k)
		p[2] = clamp8(l + (float64(p[2])-l)*k)
	}
}

// vignette darkens toward the corners by up to strength.
func vignette(img *image.RGBA, strength float64) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	cx, cy := float64(w)/2, float64(h)/2
	inv := 1 / (cx*cx + cy*cy)
	for y := range h {
		dy := float64(y) - cy
		row := img.Pix[y*img.Stride:]
		for x := range w {
			dx := float64(x) - cx
			d := (dx*dx + dy*dy) * inv
			k := clamp(1-strength*d*d*1.6, 0, 1)
			p := row[4*x : 4*x+3 : 4*x+3]
			p[0], p[1], p[2] = uint8(float64(p[0])*k), uint8(float64(p[1])*k), uint8(float64(p[2])*k)
		}
	}
}

// sharpen applies an unsharp mask with a 3x3 box blur.
func sharpen(img *image.RGBA, amount float64) {
	src := cloneRGBA(img)
	w, h, s := img.Rect.Dx(), img.Rect.Dy(), img.Stride
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*s + 4*x
			for c := range 3 {
				sum := 0
				for _, o := range [9]int{-s - 4, -s, -s + 4, -4, 0, 4, s - 4, s, s + 4} {
					sum += int(src.Pix[i+o+c])
				}
				v := float64(src.Pix[i+c])
				img.Pix[i+c] = clamp8(v + amount*(v-float64(sum)/9))
			}
		}
	}
}

// subject returns the ellipse (as its bounding box) to keep as the subject: the largest
// face when a detector finds one, else the centre of the frame.
func (e *Engine) subject(img *image.RGBA) image.Rectangle {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if e.cfg.Faces != nil {
		dw, dh := fitSize(w, h, 480)
		if fs := e.cfg.Faces.Detect(resize(img, dw, dh)); len(fs) > 0 {
			k := float64(w) / float64(dw)
			b := fs[0].Box
			// Head and shoulders: widen the face box and extend it downward.
			return image.Rect(int(float64(b.Min.X)*k)-b.Dx()*int(k), int(float64(b.Min.Y)*k)-b.Dy()*int(k)/2,
				int(float64(b.Max.X)*k)+b.Dx()*int(k), int(float64(b.Max.Y)*k)+b.Dy()*int(k)*2)
		}
	}
	return image.Rect(w*25/100, h*12/100, w*75/100, h*100/100)
}

// subjectWeight is 1 inside the subject ellipse, fading to 0 outside it.
func subjectWeight(r image.Rectangle, x, y int) float64 {
	cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2
	dx, dy := (float64(x)-cx)/(float64(r.Dx())/2), (float64(y)-cy)/(float64(r.Dy())/2)
	d := math.Sqrt(dx*dx + dy*dy)
	return clamp((1.25-d)/0.35, 0, 1)
}

// blurBackground blurs everything outside the subject: a small copy scaled back up is
// a cheap, strong blur.
func blurBackground(img *image.RGBA, subj image.Rectangle, amount float64) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	f := int(10 * amount)
	small := resize(img, max(1, w/f), max(1, h/f))
	blurred := resize(small, w, h)
	for y := range h {
		for x := range w {
			k := subjectWeight(subj, x, y)
			if k >= 1 {
				continue
			}
			i := y*img.Stride + 4*x
			b := blurred.Pix[i:]
			blendPix(img.Pix[i:], color.RGBA{b[0], b[1], b[2], 255}, 1-k)
		}
	}
}

// replaceBackground recolours pixels that resemble the frame's border colour and lie
// outside the subject, keeping their shading.
func replaceBackground(img *image.RGBA, subj image.Rectangle, c color.RGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var sum [3]float64
	n := 0.0
	for x := 0; x < w; x += 4 {
		for _, y := range []int{0, h - 1} {
			p := img.Pix[y*img.Stride+4*x:]
			sum[0], sum[1], sum[2] = sum[0]+float64(p[0]), sum[1]+float64(p[1]), sum[2]+float64(p[2])
			n++
		}
	}
	for y := 0; y < h; y += 4 {
		for _, x := range []int{0, w - 1} {
			p := img.Pix[y*img.Stride+4*x:]
			sum[0], sum[1], sum[2] = sum[0]+float64(p[0]), sum[1]+float64(p[1]), sum[2]+float64(p[2])
			n++
		}
	}
	bg := [3]float64{sum[0] / n, sum[1] / n, sum[2] / n}
	bgL := math.Max(20, 0.299*bg[0]+0.587*bg[1]+0.114*bg[2])
	for y := range h {
		row := img.Pix[y*img.Stride:]
		for x := range w {
			p := row[4*x : 4*x+3 : 4*x+3]
			d := math.Sqrt(sq(float64(p[0])-bg[0]) + sq(float64(p[1])-bg[1]) + sq(float64(p[2])-bg[2]))
			k := clamp((110-d)/60, 0, 1) * (1 - subjectWeight(subj, x, y)*0.85)
			if k <= 0 {
				continue
			}
			shade := clamp((0.299*float64(p[0])+0.587*float64(p[1])+0.114*float64(p[2]))/bgL, 0.4, 1.5)
			blendPix(row[4*x:4*x+4], rgb(clamp8(float64(c.R)*shade), clamp8(float64(c.G)*shade), clamp8(float64(c.B)*shade)), k)
		}
	}
}
