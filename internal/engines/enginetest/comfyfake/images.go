package comfyfake

import (
	"image"
	"image/color"
	"image/draw"

	"thumbforge/internal/engines/enginetest/fakekit"
)

func encodeForInpaint(in map[string]any) ([]any, error) {
	img, err := arg[*image.RGBA](in, "pixels")
	if err != nil {
		return nil, err
	}
	m, err := arg[*image.Gray](in, "mask")
	if err != nil {
		return nil, err
	}
	px := cropTo8(img)
	w, h := px.Rect.Dx(), px.Rect.Dy()
	mask := fakekit.Channel(m, 0, false, w, h)
	grey := image.NewRGBA(px.Rect)
	copy(grey.Pix, px.Pix)
	for i, v := range mask.Pix {
		if v >= 128 { // ComfyUI rounds the mask and greys what will be repainted
			copy(grey.Pix[4*i:4*i+3], []uint8{128, 128, 128})
		}
	}
	return []any{&latent{w: w, h: h, pix: grey, noise: grow(mask, intArg(in, "grow_mask_by"))}}, nil
}

// grow widens the white region of a mask by about g pixels, as grow_mask_by does.
func grow(m *image.Gray, g int) *image.Gray {
	r := (g - 1 + 1) / 2
	if g == 0 || r == 0 {
		return m
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	out := image.NewGray(m.Rect)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if m.Pix[y*m.Stride+x] < 128 {
				continue
			}
			for dy := max(0, y-r); dy <= min(h-1, y+r); dy++ {
				for dx := max(0, x-r); dx <= min(w-1, x+r); dx++ {
					out.Pix[dy*out.Stride+dx] = 255
				}
			}
		}
	}
	return out
}

// cropTo8 centre-crops an image to multiples of 8, as VAE encoding does.
func cropTo8(img *image.RGBA) *image.RGBA {
	w, h := img.Rect.Dx()/8*8, img.Rect.Dy()/8*8
	ox, oy := (img.Rect.Dx()%8)/2, (img.Rect.Dy()%8)/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Rect, img, img.Rect.Min.Add(image.Pt(ox, oy)), draw.Src)
	return out
}

func imageScale(in map[string]any) ([]any, error) {
	img, err := arg[*image.RGBA](in, "image")
	if err != nil {
		return nil, err
	}
	w, h := intArg(in, "width"), intArg(in, "height")
	sw, sh := img.Rect.Dx(), img.Rect.Dy()
	switch {
	case w == 0 && h == 0:
		return []any{img}, nil
	case w == 0:
		w = max(1, (sw*h+sh/2)/sh)
	case h == 0:
		h = max(1, (sh*w+sw/2)/sw)
	}
	src := image.Image(img)
	if in["crop"] == "center" {
		// cover: keep the centre part with the target's aspect
		cw, ch := sw, sw*h/w
		if ch > sh {
			cw, ch = sh*w/h, sh
		}
		r := image.Rect((sw-cw)/2, (sh-ch)/2, (sw-cw)/2+cw, (sh-ch)/2+ch)
		src = img.SubImage(r)
	}
	return []any{fakekit.Resize(src, w, h)}, nil
}

func composite(in map[string]any) ([]any, error) {
	dst, err := arg[*image.RGBA](in, "destination")
	if err != nil {
		return nil, err
	}
	src, err := arg[*image.RGBA](in, "source")
	if err != nil {
		return nil, err
	}
	if truthy(in["resize_source"]) {
		src = fakekit.Resize(src, dst.Rect.Dx(), dst.Rect.Dy())
	}
	out := image.NewRGBA(dst.Rect)
	copy(out.Pix, dst.Pix)
	var mask image.Image = image.NewUniform(color.Alpha{255})
	if m, ok := in["mask"].(*image.Gray); ok {
		mask = fakekit.Channel(m, 0, false, src.Rect.Dx(), src.Rect.Dy())
	}
	at := image.Pt(intArg(in, "x"), intArg(in, "y"))
	draw.DrawMask(out, src.Rect.Add(at), src, image.Point{}, mask, image.Point{}, draw.Over)
	return []any{out}, nil
}
