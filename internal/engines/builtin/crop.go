package builtin

import (
	"image"

	"thumbforge/internal/core"
)

// salientCentre returns the point of img a cover crop should keep: the centre of the
// detected faces when a detector is configured and finds any, else the centre of the
// window with the most edge energy (detail) on a small grey copy.
func salientCentre(img image.Image, faces core.FaceDetector, w, h int) image.Point {
	b := img.Bounds()
	sw, sh := fitSize(b.Dx(), b.Dy(), 96)
	small := resize(img, sw, sh)
	sx, sy := float64(b.Dx())/float64(sw), float64(b.Dy())/float64(sh)
	if c, ok := faceCentre(img, faces); ok {
		return c
	}
	energy := edgeEnergy(small)
	win := coverRect(small.Rect, w, h, image.Pt(sw/2, sh/2))
	// Slide the window along the free axis; ties keep the centre-most position.
	best, bestE := win, -1.0
	for dx := 0; dx+win.Dx() <= sw; dx++ {
		for dy := 0; dy+win.Dy() <= sh; dy++ {
			r := image.Rect(dx, dy, dx+win.Dx(), dy+win.Dy())
			e := 0.0
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					e += energy[y*sw+x]
				}
			}
			c := float64(abs(float64(dx+win.Dx()/2-sw/2)) + abs(float64(dy+win.Dy()/2-sh/2)))
			e -= c * 1e-6
			if e > bestE {
				best, bestE = r, e
			}
		}
	}
	cx := (float64(best.Min.X) + float64(best.Dx())/2) * sx
	cy := (float64(best.Min.Y) + float64(best.Dy())/2) * sy
	return image.Pt(b.Min.X+int(cx), b.Min.Y+int(cy))
}

// faceCentre is where a crop should aim to keep the largest face detected in img (on a
// copy at most 480 wide), and whether there is one.
func faceCentre(img image.Image, faces core.FaceDetector) (image.Point, bool) {
	if faces == nil {
		return image.Point{}, false
	}
	b := img.Bounds()
	dw, dh := fitSize(b.Dx(), b.Dy(), 480)
	det := img
	if dw != b.Dx() {
		det = resize(img, dw, dh)
	}
	fs := faces.Detect(det)
	if len(fs) == 0 {
		return image.Point{}, false
	}
	k := float64(b.Dx()) / float64(dw)
	c := fs[0].Box
	// The face sits in the upper part of a good crop: keep some room above it for hair
	// and below it for shoulders by aiming a little under its centre.
	return image.Pt(b.Min.X+int(float64(c.Min.X+c.Max.X)/2*k), b.Min.Y+int(float64(c.Min.Y+c.Max.Y)/2*k+float64(c.Dy())*0.3*k)), true
}

// edgeEnergy is the gradient magnitude (L1) of the luma of img, per pixel.
func edgeEnergy(img *image.RGBA) []float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	luma := make([]float64, w*h)
	for i := range luma {
		p := img.Pix[4*i:]
		luma[i] = 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
	}
	e := make([]float64, w*h)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			e[i] = abs(luma[i+1]-luma[i-1]) + abs(luma[i+w]-luma[i-w])
		}
	}
	return e
}

// coverCrop crops img around its salient centre to the aspect of w x h and scales it to
// exactly w x h: the image fills the output and is never stretched.
func coverCrop(img image.Image, faces core.FaceDetector, w, h int) *image.RGBA {
	c := salientCentre(img, faces, w, h)
	return resizeRect(img, coverRect(img.Bounds(), w, h, c), w, h)
}
