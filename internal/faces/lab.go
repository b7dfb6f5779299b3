package faces

import (
	"image"
	"math"

	"thumbforge/internal/colour"
)

// CIE Lab (D65) conversions for colour transfer: matching mean and spread in Lab moves
// skin tone and shading separately, which RGB matching cannot.

// toLab converts 8-bit sRGB to Lab.
func toLab(r, g, b uint8) [3]float64 {
	l, a, bb := colour.RGBToLab(r, g, b)
	return [3]float64{l, a, bb}
}

// fromLab converts Lab to sRGB in 0..255 (unclamped).
func fromLab(c [3]float64) (float64, float64, float64) {
	lr, lg, lb := colour.LabToLinear(c[0], c[1], c[2])
	return 255 * colour.Encode(lr), 255 * colour.Encode(lg), 255 * colour.Encode(lb)
}

// labStats are the per-channel mean and standard deviation of a region in Lab.
type labStats struct{ mean, std [3]float64 }

// ellipseStats measures m's colour inside the face ellipse of fr (shrunk by inner, so the
// hair and background at the edge do not bias the skin estimate).
func ellipseStats(m *image.RGBA, fr frame, inner float64) labStats {
	var sum, sq [3]float64
	n := 0.0
	r := fr.ellipseBounds(inner).Intersect(m.Rect)
	// Every second pixel in each direction is plenty for a mean and spread.
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			u, v := fr.toCanon(float64(x)+0.5, float64(y)+0.5)
			if ellipseRadius(u, v) > inner {
				continue
			}
			p := m.Pix[m.PixOffset(x, y):]
			c := toLab(p[0], p[1], p[2])
			for i := range c {
				sum[i] += c[i]
				sq[i] += c[i] * c[i]
			}
			n++
		}
	}
	var s labStats
	if n == 0 {
		return s
	}
	for i := range s.mean {
		s.mean[i] = sum[i] / n
		s.std[i] = math.Sqrt(math.Max(0, sq[i]/n-s.mean[i]*s.mean[i]))
	}
	return s
}

// transfer is a per-channel affine map in Lab taking one region's statistics onto
// another's (Reinhard et al.); gains are bounded so a flat or noisy region cannot blow up
// the other's contrast.
type transfer struct{ gain, offset [3]float64 }

func newTransfer(from, to labStats) transfer {
	var t transfer
	for i := range t.gain {
		g := 1.0
		if from.std[i] > 1e-3 {
			g = math.Max(0.5, math.Min(2, to.std[i]/from.std[i]))
		}
		t.gain[i] = g
		t.offset[i] = to.mean[i] - g*from.mean[i]
	}
	return t
}

func (t transfer) apply(r, g, b float64) (float64, float64, float64) {
	c := toLab(clamp8(r), clamp8(g), clamp8(b))
	for i := range c {
		c[i] = t.gain[i]*c[i] + t.offset[i]
	}
	return fromLab(c)
}
