package builtin

import (
	"image"
	"image/color"
	"math"

	"thumbforge/internal/colour"
)

// linearToSRGB8 maps linear light to an 8-bit sRGB value.
func linearToSRGB8(c float64) uint8 { return colour.LinearToSRGB8(c) }

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

// RGBToLab converts an 8-bit sRGB colour to CIE L*a*b* (D65): L in 0..100.
func RGBToLab(r, g, b uint8) (l, a, bb float64) { return colour.RGBToLab(r, g, b) }

// LabToRGB converts CIE L*a*b* (D65) back to 8-bit sRGB, clipping out-of-gamut colours.
func LabToRGB(l, a, bb float64) (r, g, b uint8) { return colour.LabToRGB(l, a, bb) }

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
	return 0.2126*colour.Linear(r) + 0.7152*colour.Linear(g) + 0.0722*colour.Linear(b)
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
