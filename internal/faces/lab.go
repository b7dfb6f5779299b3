package faces

import (
	"image"
	"math"
)

// CIE Lab (D65) conversions for colour transfer: matching mean and spread in Lab moves
// skin tone and shading separately, which RGB matching cannot.

var srgbToLinear = func() (t [256]float64) {
	for i := range t {
		c := float64(i) / 255
		if c <= 0.04045 {
			t[i] = c / 12.92
		} else {
			t[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return t
}()

const (
	whiteX, whiteY, whiteZ = 0.95047, 1.0, 1.08883
	labEps, labKappa       = 216.0 / 24389, 24389.0 / 27
)

func labF(t float64) float64 {
	if t > labEps {
		return math.Cbrt(t)
	}
	return (labKappa*t + 16) / 116
}

func labFInv(t float64) float64 {
	if t3 := t * t * t; t3 > labEps {
		return t3
	}
	return (116*t - 16) / labKappa
}

// toLab converts 8-bit sRGB to Lab.
func toLab(r, g, b uint8) [3]float64 {
	lr, lg, lb := srgbToLinear[r], srgbToLinear[g], srgbToLinear[b]
	x := (0.4124564*lr + 0.3575761*lg + 0.1804375*lb) / whiteX
	y := (0.2126729*lr + 0.7151522*lg + 0.0721750*lb) / whiteY
	z := (0.0193339*lr + 0.1191920*lg + 0.9503041*lb) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// fromLab converts Lab to sRGB in 0..255 (unclamped).
func fromLab(c [3]float64) (float64, float64, float64) {
	fy := (c[0] + 16) / 116
	fx, fz := fy+c[1]/500, fy-c[2]/200
	x, y, z := labFInv(fx)*whiteX, labFInv(fy)*whiteY, labFInv(fz)*whiteZ
	lr := 3.2404542*x - 1.5371385*y - 0.4985314*z
	lg := -0.9692660*x + 1.8760108*y + 0.0415560*z
	lb := 0.0556434*x - 0.2040259*y + 1.0572252*z
	return 255 * gammaEncode(lr), 255 * gammaEncode(lg), 255 * gammaEncode(lb)
}

func gammaEncode(c float64) float64 {
	if c <= 0.0031308 {
		return 12.92 * c
	}
	return 1.055*math.Pow(c, 1/2.4) - 0.055
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
