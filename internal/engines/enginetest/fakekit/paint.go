package fakekit

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
)

// Hash mixes strings into a seed; a separator keeps ("ab","c") apart from ("a","bc").
func Hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func colour(r *rand.Rand) color.RGBA {
	return color.RGBA{uint8(30 + r.IntN(200)), uint8(30 + r.IntN(200)), uint8(30 + r.IntN(200)), 255}
}

// Scene paints the picture a model would return for seed and prompt at w x h: a
// gradient with soft discs and bars whose colours and places follow (seed, prompt), so
// equal requests give equal pixels and different prompts visibly different ones.
func Scene(seed uint64, prompt string, w, h int) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, Hash(prompt))) // pictures depend on seed and prompt only
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	top, bottom := colour(r), colour(r)
	for y := 0; y < h; y++ {
		t := float64(y) / float64(max(h-1, 1))
		c := color.RGBA{lerp8(top.R, bottom.R, t), lerp8(top.G, bottom.G, t), lerp8(top.B, bottom.B, t), 255}
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < 4*w; x += 4 {
			row[x], row[x+1], row[x+2], row[x+3] = c.R, c.G, c.B, 255
		}
	}
	for i := 0; i < 3; i++ {
		bar := image.Rect(0, int(r.Float64()*float64(h)), w, 0).Canon()
		bar.Max.Y = bar.Min.Y + 1 + int(r.Float64()*float64(h)/8)
		draw.Draw(img, bar, image.NewUniform(colour(r)), image.Point{}, draw.Src)
	}
	for i := 0; i < 7; i++ {
		cx, cy := r.Float64()*float64(w), r.Float64()*float64(h)
		rad := (0.05 + 0.2*r.Float64()) * float64(min(w, h))
		disc(img, cx, cy, rad, colour(r))
	}
	return img
}

// disc blends a soft-edged disc into img.
func disc(img *image.RGBA, cx, cy, rad float64, c color.RGBA) {
	b := image.Rect(int(cx-rad), int(cy-rad), int(cx+rad)+1, int(cy+rad)+1).Intersect(img.Bounds())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := math.Hypot(float64(x)-cx, float64(y)-cy)
			a := math.Min(1, math.Max(0, (rad-d)/4))
			if a == 0 {
				continue
			}
			p := img.Pix[img.PixOffset(x, y):]
			p[0], p[1], p[2] = lerp8(p[0], c.R, a), lerp8(p[1], c.G, a), lerp8(p[2], c.B, a)
		}
	}
}

func lerp8(a, b uint8, t float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t))
}

// Blend is what sampling does to a starting picture: it moves base toward gen by
// strength (0 keeps base, 1 is gen), only where mask is at least half white (nil mask:
// everywhere). base, gen and mask must have gen's size.
func Blend(base, gen *image.RGBA, strength float64, mask *image.Gray) *image.RGBA {
	out := image.NewRGBA(gen.Bounds())
	for y := 0; y < gen.Rect.Dy(); y++ {
		for x := 0; x < gen.Rect.Dx(); x++ {
			o := out.PixOffset(x, y)
			t := strength
			if mask != nil && mask.Pix[mask.PixOffset(x, y)] < 128 {
				t = 0
			}
			for c := 0; c < 3; c++ {
				out.Pix[o+c] = lerp8(base.Pix[o+c], gen.Pix[o+c], t)
			}
			out.Pix[o+3] = 255
		}
	}
	return out
}

// Resize stretches img to exactly w x h (bilinear), as a "just resize" step does.
func Resize(img image.Image, w, h int) *image.RGBA {
	src := ToRGBA(img)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for y := 0; y < h; y++ {
		fy := math.Max(0, (float64(y)+0.5)*float64(sh)/float64(h)-0.5)
		y0 := min(int(fy), sh-1)
		y1, ty := min(y0+1, sh-1), fy-float64(y0)
		for x := 0; x < w; x++ {
			fx := math.Max(0, (float64(x)+0.5)*float64(sw)/float64(w)-0.5)
			x0 := min(int(fx), sw-1)
			x1, tx := min(x0+1, sw-1), fx-float64(x0)
			o := out.PixOffset(x, y)
			for c := 0; c < 4; c++ {
				a := float64(src.Pix[src.PixOffset(x0, y0)+c])*(1-tx) + float64(src.Pix[src.PixOffset(x1, y0)+c])*tx
				b := float64(src.Pix[src.PixOffset(x0, y1)+c])*(1-tx) + float64(src.Pix[src.PixOffset(x1, y1)+c])*tx
				out.Pix[o+c] = uint8(math.Round(a*(1-ty) + b*ty))
			}
		}
	}
	return out
}

// ToRGBA returns img as an *image.RGBA whose bounds start at (0,0).
func ToRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// Channel returns one channel of img (0 red .. 3 alpha) as a grey image of size w x h,
// inverted when invert is set.
func Channel(img image.Image, c int, invert bool, w, h int) *image.Gray {
	src := Resize(img, w, h)
	out := image.NewGray(image.Rect(0, 0, w, h))
	for i := range out.Pix {
		v := src.Pix[4*i+c]
		if invert {
			v = 255 - v
		}
		out.Pix[i] = v
	}
	return out
}

// EncodePNG encodes img as PNG, fast rather than small.
func EncodePNG(img image.Image) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		panic(err) // encoding to memory fails only for an invalid image, a bug in the fake
	}
	return b.Bytes()
}
