package jpegenc

import "math"

// Forward DCT after Arai, Agui and Nakajima (the factorisation libjpeg calls
// jfdctflt): 5 multiplies and 29 adds per 8-point pass. Its outputs are the
// true DCT coefficients times aan[u]*aan[v]*8; that factor, the quantiser
// step and the fixed-point scale of the input samples are folded into one
// multiplier per coefficient (see quantScales), so quantising is a multiply.

const (
	c4    = 0.707106781 // cos(4*pi/16)
	c6s   = 0.382683433 // cos(6*pi/16)
	c2mc6 = 0.541196100 // cos(2*pi/16) - cos(6*pi/16)
	c2pc6 = 1.306562965 // cos(2*pi/16) + cos(6*pi/16)
)

// fdct8 transforms eight samples spaced stride apart in place.
func fdct8(b *[64]float32, i, s int) {
	d0, d1, d2, d3 := b[i], b[i+s], b[i+2*s], b[i+3*s]
	d4, d5, d6, d7 := b[i+4*s], b[i+5*s], b[i+6*s], b[i+7*s]

	t0, t7 := d0+d7, d0-d7
	t1, t6 := d1+d6, d1-d6
	t2, t5 := d2+d5, d2-d5
	t3, t4 := d3+d4, d3-d4

	// Even part.
	t10, t13 := t0+t3, t0-t3
	t11, t12 := t1+t2, t1-t2
	b[i] = t10 + t11
	b[i+4*s] = t10 - t11
	z1 := (t12 + t13) * c4
	b[i+2*s] = t13 + z1
	b[i+6*s] = t13 - z1

	// Odd part.
	t10 = t4 + t5
	t11 = t5 + t6
	t12 = t6 + t7
	z5 := (t10 - t12) * c6s
	z2 := c2mc6*t10 + z5
	z4 := c2pc6*t12 + z5
	z3 := t11 * c4
	z11, z13 := t7+z3, t7-z3
	b[i+5*s] = z13 + z2
	b[i+3*s] = z13 - z2
	b[i+1*s] = z11 + z4
	b[i+7*s] = z11 - z4
}

// fdct transforms an 8x8 block in place (rows, then columns), leaving the
// coefficients scaled as described above.
func fdct(b *[64]float32) {
	for r := 0; r < 64; r += 8 {
		fdct8(b, r, 1)
	}
	for c := 0; c < 8; c++ {
		fdct8(b, c, 8)
	}
}

// quantScales returns per-coefficient multipliers in zigzag order that turn
// the AAN outputs of samples scaled by inScale into quantised coefficients.
func quantScales(q *[64]uint8, inScale float64) [64]float32 {
	var aan [8]float64
	aan[0] = 1
	for k := 1; k < 8; k++ {
		aan[k] = math.Cos(float64(k)*math.Pi/16) * math.Sqrt2
	}
	var s [64]float32
	for k := range s {
		n := int(zigzag[k])
		s[k] = float32(1 / (float64(q[k]) * aan[n/8] * aan[n%8] * 8 * inScale))
	}
	return s
}

// roundBias makes truncation round to nearest: every quantised value is far
// above -roundBias, so int32(v+roundBias+0.5)-roundBias is floor(v+0.5).
const roundBias = 1 << 14

// quantize transforms b and writes its quantised coefficients in zigzag order
// to z, returning a mask with bit k set where z[k] != 0.
func quantize(b *[64]float32, scale *[64]float32, z *[64]int32) uint64 {
	fdct(b)
	var mask uint64
	for k := range z {
		v := int32(b[zigzag[k]]*scale[k]+(roundBias+0.5)) - roundBias
		z[k] = v
		if v != 0 {
			mask |= 1 << k
		}
	}
	return mask
}
