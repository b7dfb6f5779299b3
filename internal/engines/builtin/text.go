package builtin

import (
	"fmt"
	"image"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"thumbforge/internal/engines/builtin/fonts"
)

// fontSet holds the parsed fonts and a pool of faces per size: creating a face is slow
// and an opentype face is not safe for concurrent use, so each size keeps a sync.Pool.
type fontSet struct {
	display  *opentype.Font
	fallback *opentype.Font
	pools    sync.Map // faceKey -> *sync.Pool
}

type faceKey struct {
	fallback bool
	size     int
}

func newFontSet() (*fontSet, error) {
	d, err := opentype.Parse(fonts.Display())
	if err != nil {
		return nil, fmt.Errorf("parse display font: %w", err)
	}
	f, err := opentype.Parse(fonts.Fallback())
	if err != nil {
		return nil, fmt.Errorf("parse fallback font: %w", err)
	}
	return &fontSet{display: d, fallback: f}, nil
}

// withFace runs fn with a face of the given pixel size, returning the face to its pool.
func (fs *fontSet) withFace(fallback bool, size int, fn func(font.Face)) {
	k := faceKey{fallback, size}
	v, ok := fs.pools.Load(k)
	if !ok {
		v, _ = fs.pools.LoadOrStore(k, &sync.Pool{New: func() any {
			f := fs.display
			if fallback {
				f = fs.fallback
			}
			face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingNone})
			if err != nil {
				return nil
			}
			return face
		}})
	}
	pool := v.(*sync.Pool)
	face, _ := pool.Get().(font.Face)
	if face == nil {
		return
	}
	fn(face)
	pool.Put(face)
}

// needsFallback reports whether the display font lacks a glyph of s.
func (fs *fontSet) needsFallback(s string) bool {
	missing := false
	fs.withFace(false, 32, func(f font.Face) {
		for _, r := range s {
			if r == ' ' {
				continue
			}
			if _, ok := f.GlyphAdvance(r); !ok {
				missing = true
				return
			}
		}
	})
	return missing
}

// measure returns the ink bounds of s at size, relative to the dot at (0, baseline).
func (fs *fontSet) measure(fallback bool, size int, s string) (b fixed.Rectangle26_6, adv fixed.Int26_6) {
	fs.withFace(fallback, size, func(f font.Face) { b, adv = font.BoundString(f, s) })
	return b, adv
}

// drawText renders s into mask with the dot at (x, baseline). Glyph masks are merged
// straight into mask's pixels ("over" for an opaque source), clipped to its bounds:
// font.Drawer would go through image/draw's generic per-pixel path for an Alpha target.
func (fs *fontSet) drawText(mask *image.Alpha, fallback bool, size int, s string, x, baseline int) {
	fs.withFace(fallback, size, func(f font.Face) {
		dot := fixed.P(x, baseline)
		prev := rune(-1)
		for _, c := range s {
			if prev >= 0 {
				dot.X += f.Kern(prev, c)
			}
			dr, gm, mp, adv, ok := f.Glyph(dot, c)
			if !ok {
				prev = c
				continue
			}
			if ga, isAlpha := gm.(*image.Alpha); isAlpha {
				mergeOver(mask, dr, ga, mp)
			} else {
				d := font.Drawer{Dst: mask, Src: image.Opaque, Face: f, Dot: dot}
				d.DrawString(string(c))
			}
			dot.X += adv
			prev = c
		}
	})
}

// mergeOver draws glyph mask g (its point mp at dr.Min) into dst: an opaque source
// "over" the existing coverage.
func mergeOver(dst *image.Alpha, dr image.Rectangle, g *image.Alpha, mp image.Point) {
	c := dr.Intersect(dst.Rect)
	for y := c.Min.Y; y < c.Max.Y; y++ {
		gy := mp.Y + y - dr.Min.Y
		gi := g.PixOffset(mp.X+c.Min.X-dr.Min.X, gy)
		grow := g.Pix[gi : gi+c.Dx()]
		drow := dst.Pix[dst.PixOffset(c.Min.X, y):]
		for i, m := range grow {
			if m != 0 {
				d := uint32(drow[i])
				drow[i] = uint8(uint32(m) + (d*(255-uint32(m))+127)/255)
			}
		}
	}
}
