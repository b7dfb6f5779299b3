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

// fdct transforms an 8x8 block in place, rows then columns, leaving the
// coefficients scaled as described above. The 8-point butterfly is written
// out in both passes because the compiler will not inline it, and a call per
// pass cost a third of the encoder's time.
func fdct(b *[64]float32) {
	for r := 0; r < 64; r += 8 {
		p := (*[8]float32)(b[r : r+8])
		d0, d1, d2, d3, d4, d5, d6, d7 := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
		t0, t7 := d0+d7, d0-d7
		t1, t6 := d1+d6, d1-d6
		t2, t5 := d2+d5, d2-d5
		t3, t4 := d3+d4, d3-d4
		t10, t13 := t0+t3, t0-t3 // even part
		t11, t12 := t1+t2, t1-t2
		z1 := (t12 + t13) * c4
		u10, u11, u12 := t4+t5, t5+t6, t6+t7 // odd part
		z5 := (u10 - u12) * c6s
		z2 := c2mc6*u10 + z5
		z4 := c2pc6*u12 + z5
		z3 := u11 * c4
		z11, z13 := t7+z3, t7-z3
		p[0], p[4], p[2], p[6] = t10+t11, t10-t11, t13+z1, t13-z1
		p[5], p[3], p[1], p[7] = z13+z2, z13-z2, z11+z4, z11-z4
	}
	for c := 0; c < 8; c++ {
		d0, d1, d2, d3 := b[c], b[c+8], b[c+16], b[c+24]
		d4, d5, d6, d7 := b[c+32], b[c+40], b[c+48], b[c+56]
		t0, t7 := d0+d7, d0-d7
		t1, t6 := d1+d6, d1-d6
		t2, t5 := d2+d5, d2-d5
		t3, t4 := d3+d4, d3-d4
		t10, t13 := t0+t3, t0-t3 // even part
		t11, t12 := t1+t2, t1-t2
		z1 := (t12 + t13) * c4
		u10, u11, u12 := t4+t5, t5+t6, t6+t7 // odd part
		z5 := (u10 - u12) * c6s
		z2 := c2mc6*u10 + z5
		z4 := c2pc6*u12 + z5
		z3 := u11 * c4
		z11, z13 := t7+z3, t7-z3
		b[c], b[c+32], b[c+16], b[c+48] = t10+t11, t10-t11, t13+z1, t13-z1
		b[c+40], b[c+24], b[c+8], b[c+56] = z13+z2, z13-z2, z11+z4, z11-z4
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
// to z, returning a mask with bit k set where z[k] != 0 (the entropy coder
// walks set bits instead of testing 63 coefficients).
func quantize(b *[64]float32, scale *[64]float32, z *[64]int32) uint64 {
	fdct(b)
	var mask uint64
	// Eight coefficients per iteration: the loop is bound by the latency
	// of float->int conversion, and independent lanes let them overlap.
	for k := 0; k < 64; k += 8 {
		zg := (*[8]uint8)(zigzag[k : k+8])
		sc := (*[8]float32)(scale[k : k+8])
		out := (*[8]int32)(z[k : k+8])
		var m uint64
		for i := range 8 {
			v := int32(b[zg[i]]*sc[i]+(roundBias+0.5)) - roundBias
			out[i] = v
			// Branch-free: v|-v has its sign bit set exactly when v != 0,
			// and a data-dependent branch here mispredicts constantly.
			m |= uint64(uint32(v|-v)>>31) << i
		}
		mask |= m << k
	}
	return mask
}
