package builtin

import (
	"image"

	"thumbforge/internal/core"
)

// weightMix is how much of the reference survives at each image weight, and how
// coarsely it is posterized: lower weights move further from the reference.
func weightMix(w core.Weight) (keep float64, levels int) {
	switch w {
	case core.WeightHigh:
		return 0.92, 0
	case core.WeightLow:
		return 0.38, 4
	default:
		return 0.68, 8
	}
}

// blendReference mixes the cover-cropped reference ref into the generated background dst
// (in place), posterizing the reference first at lower weights.
func blendReference(dst, ref *image.RGBA, w core.Weight) {
	keep, levels := weightMix(w)
	// Integer maths (8 fractional bits): this pass touches every output pixel.
	var lut [256]int32
	for i := range lut {
		v := float64(i)
		if levels > 0 {
			step := 255 / float64(levels-1)
			v = float64(int(v/step+0.5)) * step
		}
		lut[i] = int32(v*keep*256 + 0.5)
	}
	k := int32((1-keep)*256 + 0.5)
	n := min(len(dst.Pix), len(ref.Pix))
	for i := 0; i+3 < n; i += 4 {
		d := dst.Pix[i : i+4 : i+4]
		r := ref.Pix[i : i+4 : i+4]
		d[0] = uint8(min((lut[r[0]]+int32(d[0])*k+128)>>8, 255))
		d[1] = uint8(min((lut[r[1]]+int32(d[1])*k+128)>>8, 255))
		d[2] = uint8(min((lut[r[2]]+int32(d[2])*k+128)>>8, 255))
		d[3] = 255
	}
}
