package builtin

import (
	"image"

	"thumbforge/internal/core"
)

// styleStrength is how far Reinhard transfer moves toward the style: full transfer can
// wash out a composition, most of the way keeps it recognisably styled.
const styleStrength = 0.8

// applyStyle moves the Lab mean and spread of dst toward the style's (Reinhard colour
// transfer), in place, and sharpens or softens contrast by the style's contrast.
func applyStyle(dst *image.RGBA, st *core.StyleParams) {
	mean, std := LabStats(dst)
	var scale, shift [3]float64
	for i := range 3 {
		s := 1.0
		if std[i] > 0.5 && st.LabStd[i] > 0 {
			s = clamp(st.LabStd[i]/std[i], 0.5, 2)
		}
		scale[i] = 1 + styleStrength*(s-1)
		shift[i] = styleStrength * (st.LabMean[i] - mean[i])
	}
	// Cache conversions: thumbnails have large flat and gradient areas, so many pixels
	// repeat their neighbour's colour.
	var lastIn [3]uint8
	var lastOut [3]uint8
	have := false
	for i := 0; i+3 < len(dst.Pix); i += 4 {
		p := dst.Pix[i : i+3 : i+3]
		if have && p[0] == lastIn[0] && p[1] == lastIn[1] && p[2] == lastIn[2] {
			p[0], p[1], p[2] = lastOut[0], lastOut[1], lastOut[2]
			continue
		}
		lastIn = [3]uint8{p[0], p[1], p[2]}
		l, a, b := RGBToLab(p[0], p[1], p[2])
		l = (l-mean[0])*scale[0] + mean[0] + shift[0]
		a = (a-mean[1])*scale[1] + mean[1] + shift[1]
		b = (b-mean[2])*scale[2] + mean[2] + shift[2]
		p[0], p[1], p[2] = LabToRGB(clamp(l, 0, 100), a, b)
		lastOut = [3]uint8{p[0], p[1], p[2]}
		have = true
	}
}
