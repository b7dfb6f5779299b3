package jpegscale

// Inverse DCTs. The 8x8 one is the integer Loeffler-Ligtenberg-Moschytz
// factorisation (12 multiplies per 1-D pass) in 13-bit fixed point. The
// reduced ones evaluate the same continuous inverse transform at the centres
// of 2x2 / 4x4 / 8x8 pixel groups using only the low N x N coefficients:
//
//	f(x) = 1/2 * sum_{u<N} C(u) F(u) cos((2x+1) u pi / 2N),  C(0) = 1/sqrt2
//
// which is what libjpeg's reduced-size IDCTs compute, so a 1/d decode
// approximates a box-filtered downscale of the full decode.

const (
	constBits = 13
	pass1Bits = 2

	fix0_298631336 = 2446
	fix0_390180644 = 3196
	fix0_541196100 = 4433
	fix0_765366865 = 6270
	fix0_899976223 = 7373
	fix1_175875602 = 9633
	fix1_501321110 = 12299
	fix1_847759065 = 15137
	fix1_961570560 = 16069
	fix2_053119869 = 16819
	fix2_562915447 = 20995
	fix3_072711026 = 25172

	fixSqrtHalf = 5793 // cos(pi/4)
	fixCos1_8   = 7568 // cos(pi/8)
	fixCos3_8   = 3135 // cos(3pi/8)
)

// clamp saturates a sample to 0..255.
func clamp(v int32) uint8 {
	if uint32(v) > 255 {
		if v < 0 {
			return 0
		}
		return 255
	}
	return uint8(v)
}

// fillDC writes a flat n x n block: with no AC energy every output sample is DC/8.
func fillDC(dc int32, dst []byte, stride, n int) {
	v := clamp((dc + 4 + 128*8) >> 3)
	for y := 0; y < n; y++ {
		row := dst[y*stride : y*stride+n]
		for x := range row {
			row[x] = v
		}
	}
}

// idct8 is the full-size inverse DCT of a dequantised block in natural order.
func idct8(blk *[64]int32, dst []byte, stride int) {
	var ws [64]int32
	// Pass 1: columns, keeping pass1Bits of extra precision.
	for c := 0; c < 8; c++ {
		if blk[8+c]|blk[16+c]|blk[24+c]|blk[32+c]|blk[40+c]|blk[48+c]|blk[56+c] == 0 {
			dc := blk[c] << pass1Bits
			for r := 0; r < 8; r++ {
				ws[r*8+c] = dc
			}
			continue
		}
		var out [8]int32
		idct1D(blk[c], blk[8+c], blk[16+c], blk[24+c], blk[32+c], blk[40+c], blk[48+c], blk[56+c],
			1<<(constBits-pass1Bits-1), constBits-pass1Bits, &out)
		for r := 0; r < 8; r++ {
			ws[r*8+c] = out[r]
		}
	}
	// Pass 2: rows; the rounding term and the +128 level shift ride on the
	// DC input, and the final shift also removes the 8x scale of the 2-D transform.
	const shift = constBits + pass1Bits + 3
	for r := 0; r < 8; r++ {
		w := ws[r*8 : r*8+8 : r*8+8]
		row := dst[r*stride : r*stride+8 : r*stride+8]
		var out [8]int32
		idct1D(w[0]+(128<<(pass1Bits+3)), w[1], w[2], w[3], w[4], w[5], w[6], w[7],
			1<<(shift-1), shift, &out)
		for x := range row {
			row[x] = clamp(out[x])
		}
	}
}

// idct1D is one 8-point LLM inverse DCT; rnd is added once to every output
// before the arithmetic shift right by sh.
func idct1D(i0, i1, i2, i3, i4, i5, i6, i7, rnd int32, sh uint, out *[8]int32) {
	// Even part: i0, i2, i4, i6.
	z1 := (i2 + i6) * fix0_541196100
	t2 := z1 - i6*fix1_847759065
	t3 := z1 + i2*fix0_765366865
	t0 := (i0+i4)<<constBits + rnd
	t1 := (i0-i4)<<constBits + rnd
	t10, t13 := t0+t3, t0-t3
	t11, t12 := t1+t2, t1-t2
	// Odd part: i7, i5, i3, i1.
	o0, o1, o2, o3 := i7, i5, i3, i1
	a1, a2, a3, a4 := o0+o3, o1+o2, o0+o2, o1+o3
	z5 := (a3 + a4) * fix1_175875602
	o0 *= fix0_298631336
	o1 *= fix2_053119869
	o2 *= fix3_072711026
	o3 *= fix1_501321110
	a1 *= -fix0_899976223
	a2 *= -fix2_562915447
	a3 = a3*-fix1_961570560 + z5
	a4 = a4*-fix0_390180644 + z5
	o0 += a1 + a3
	o1 += a2 + a4
	o2 += a2 + a3
	o3 += a1 + a4
	out[0] = (t10 + o3) >> sh
	out[7] = (t10 - o3) >> sh
	out[1] = (t11 + o2) >> sh
	out[6] = (t11 - o2) >> sh
	out[2] = (t12 + o1) >> sh
	out[5] = (t12 - o1) >> sh
	out[3] = (t13 + o0) >> sh
	out[4] = (t13 - o0) >> sh
}

// idct4 produces the 4x4 half-scale block from the top-left 4x4 coefficients.
func idct4(blk *[64]int32, dst []byte, stride int) {
	var ws [16]int32
	// Pass 1 (columns): scale 2^13 in, keep 2 fractional bits out.
	for c := 0; c < 4; c++ {
		var out [4]int32
		idct4x1D(blk[c], blk[8+c], blk[16+c], blk[24+c], 1<<10, 11, &out)
		for r := 0; r < 4; r++ {
			ws[r*4+c] = out[r]
		}
	}
	// Pass 2 (rows): 2^13 * 2^2 fixed point and the 1/4 of the 2-D transform.
	const shift = constBits + 2 + 2
	for r := 0; r < 4; r++ {
		var out [4]int32
		idct4x1D(ws[r*4], ws[r*4+1], ws[r*4+2], ws[r*4+3], 1<<(shift-1)+128<<shift, shift, &out)
		row := dst[r*stride : r*stride+4 : r*stride+4]
		for x := range row {
			row[x] = clamp(out[x])
		}
	}
}

// idct4x1D is the 4-point inverse DCT with C(u)cos((2x+1)u pi/8) weights.
func idct4x1D(f0, f1, f2, f3, rnd int32, sh uint, out *[4]int32) {
	e0 := (f0+f2)*fixSqrtHalf + rnd
	e1 := (f0-f2)*fixSqrtHalf + rnd
	o0 := f1*fixCos1_8 + f3*fixCos3_8
	o1 := f1*fixCos3_8 - f3*fixCos1_8
	out[0] = (e0 + o0) >> sh
	out[3] = (e0 - o0) >> sh
	out[1] = (e1 + o1) >> sh
	out[2] = (e1 - o1) >> sh
}

// idct2 produces the 2x2 quarter-scale block: every weight is exactly 1/8.
func idct2(blk *[64]int32, dst []byte, stride int) {
	a, b, c, e := blk[0]+4+128*8, blk[1], blk[8], blk[9]
	r0 := dst[0:2:2]
	r1 := dst[stride : stride+2 : stride+2]
	r0[0] = clamp((a + b + c + e) >> 3)
	r0[1] = clamp((a - b + c - e) >> 3)
	r1[0] = clamp((a + b - c - e) >> 3)
	r1[1] = clamp((a - b - c + e) >> 3)
}
