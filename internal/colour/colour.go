// Package colour converts between sRGB, linear light and CIE L*a*b* (D65): the engine's
// style transfer and the face swap's skin matching both work in Lab, where lightness and
// colour move separately.
package colour

import "math"

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

// linearToSRGBTable maps linear light in [0,1], in 4096 steps, to 8-bit sRGB.
var linearToSRGBTable = func() (t [4097]uint8) {
	for i := range t {
		v := Encode(float64(i)/4096)*255 + 0.5
		t[i] = uint8(math.Max(0, math.Min(255, v)))
	}
	return t
}()

// Linear returns the linear light of an 8-bit sRGB value, in [0,1].
func Linear(v uint8) float64 { return srgbToLinear[v] }

// Encode applies the sRGB transfer curve to linear light (unclamped).
func Encode(c float64) float64 {
	if c <= 0.0031308 {
		return 12.92 * c
	}
	return 1.055*math.Pow(c, 1/2.4) - 0.055
}

// LinearToSRGB8 maps linear light to an 8-bit sRGB value, clipping to [0,255].
func LinearToSRGB8(c float64) uint8 {
	if c <= 0 {
		return 0
	}
	if c >= 1 {
		return 255
	}
	return linearToSRGBTable[int(c*4096+0.5)]
}

// D65 white point and the CIE constants.
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

// RGBToLab converts an 8-bit sRGB colour to L*a*b*: L in 0..100.
func RGBToLab(r, g, b uint8) (l, a, bb float64) {
	lr, lg, lb := srgbToLinear[r], srgbToLinear[g], srgbToLinear[b]
	x := (0.4124564*lr + 0.3575761*lg + 0.1804375*lb) / whiteX
	y := (0.2126729*lr + 0.7151522*lg + 0.0721750*lb) / whiteY
	z := (0.0193339*lr + 0.1191920*lg + 0.9503041*lb) / whiteZ
	fx, fy, fz := labF(x), labF(y), labF(z)
	return 116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)
}

// LabToLinear converts L*a*b* to linear-light RGB, unclipped (out-of-gamut values fall
// outside [0,1]).
func LabToLinear(l, a, bb float64) (lr, lg, lb float64) {
	fy := (l + 16) / 116
	fx, fz := fy+a/500, fy-bb/200
	x, y, z := labFInv(fx)*whiteX, labFInv(fy)*whiteY, labFInv(fz)*whiteZ
	return 3.2404542*x - 1.5371385*y - 0.4985314*z,
		-0.9692660*x + 1.8760108*y + 0.0415560*z,
		0.0556434*x - 0.2040259*y + 1.0572252*z
}

// LabToRGB converts L*a*b* to 8-bit sRGB, clipping out-of-gamut colours.
func LabToRGB(l, a, bb float64) (r, g, b uint8) {
	lr, lg, lb := LabToLinear(l, a, bb)
	return LinearToSRGB8(lr), LinearToSRGB8(lg), LinearToSRGB8(lb)
}

// LinearToSRGB12 maps linear light given in 1/4096 steps (0..4096) to 8-bit sRGB: the
// table lookup for integer pixel loops.
func LinearToSRGB12(i int64) uint8 { return linearToSRGBTable[i] }
