package engine

import (
	"image"
	"image/color"
	"math"
)

// srgbToLinear maps an 8-bit sRGB value to linear light; a table because it runs per pixel.
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

// linearToSRGB8 maps linear light in [0,1] to an 8-bit sRGB value via a 4096-entry table.
var linearToSRGBTable = func() (t [4097]uint8) {
	for i := range t {
		c := float64(i) / 4096
		var v float64
		if c <= 0.0031308 {
			v = c * 12.92
		} else {
			v = 1.055*math.Pow(c, 1/2.4) - 0.055
		}
		t[i] = uint8(clamp(v*255+0.5, 0, 255))
	}
	return t
}()

func linearToSRGB8(c float64) uint8 {
	if c <= 0 {
		return 0
	}
	if c >= 1 {
		return 255
	}
	return linearToSRGBTable[int(c*4096+0.5)]
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func clamp8(v float64) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v + 0.5)
}

// D65 white point.
const (
	whiteX = 0.95047
	whiteY = 1.0
	whiteZ = 1.08883
)

func labF(t float64) float64 {
	if t > 216.0/24389 {
		return math.Cbrt(t)
	}
	return (24389.0/27*t + 16) / 116
}

func labFInv(t float64) float64 {
	if t3 := t * t * t; t3 > 216.0/24389 {
		return t3
	}
	return (116*t - 16) * 27 / 24389
}

// RGBToLab converts an 8-bit sRGB colour to CIE L*a*b* (D65): L in 0..100.
func RGBToLab(r, g, b uint8) (l, a, bb float64) {
	lr, lg, lb := srgbToLinear[r], srgbToLinear[g], srgbToLinear[b]
	x := (0.4124564*lr + 0.3575761*lg + 0.1804375*lb) / whiteX
	y := (0.2126729*lr + 0.7151522*lg + 0.0721750*lb) / whiteY
	z := (0.0193339*lr + 0.1191920*lg + 0.9503041*lb) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// LabToRGB converts CIE L*a*b* (D65) back to 8-bit sRGB, clipping out-of-gamut colours.
func LabToRGB(l, a, bb float64) (r, g, b uint8) {
	fy := (l + 16) / 116
	fx := fy + a/500
	fz := fy - bb/200
	x, y, z := labFInv(fx)*whiteX, labFInv(fy)*whiteY, labFInv(fz)*whiteZ
	lr := 3.2404542*x - 1.5371385*y - 0.4985314*z
	lg := -0.9692660*x + 1.8760108*y + 0.0415560*z
	lb := 0.0556434*x - 0.2040259*y + 1.0572252*z
	return linearToSRGB8(lr), linearToSRGB8(lg), linearToSRGB8(lb)
}

// LabStats returns the per-channel mean and standard deviation of img in L*a*b*, on a
// sample grid of at most about 256x256 points so it is cheap on large images.
func LabStats(img image.Image) (mean, std [3]float64) {
	rgba := toRGBA(img)
	b := rgba.Bounds()
	step := max(1, max(b.Dx(), b.Dy())/256)
	var sum, sq [3]float64
	n := 0.0
	for y := b.Min.Y; y < b.Max.Y; y += step {
		row := rgba.Pix[(y-b.Min.Y)*rgba.Stride:]
		for x := 0; x < b.Dx(); x += step {
			p := row[4*x:]
			l, a, bb := RGBToLab(p[0], p[1], p[2])
			sum[0] += l
			sum[1] += a
			sum[2] += bb
			sq[0] += l * l
			sq[1] += a * a
			sq[2] += bb * bb
			n++
		}
	}
	if n == 0 {
		return mean, std
	}
	for i := range 3 {
		mean[i] = sum[i] / n
		std[i] = math.Sqrt(math.Max(0, sq[i]/n-mean[i]*mean[i]))
	}
	return mean, std
}

// relLuminance is the WCAG relative luminance of an 8-bit sRGB colour.
func relLuminance(r, g, b uint8) float64 {
	return 0.2126*srgbToLinear[r] + 0.7152*srgbToLinear[g] + 0.0722*srgbToLinear[b]
}

// contrastRatio is the WCAG contrast ratio of two relative luminances.
func contrastRatio(l1, l2 float64) float64 {
	if l1 < l2 {
		l1, l2 = l2, l1
	}
	return (l1 + 0.05) / (l2 + 0.05)
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

// hexRGB parses 0xRRGGBB.
func hexRGB(v uint32) color.RGBA { return rgb(uint8(v>>16), uint8(v>>8), uint8(v)) }
