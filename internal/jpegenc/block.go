package jpegenc

import "math/bits"

// component is one colour component's coding state within a scan.
type component struct {
	scale  *[64]float32 // quantScales for this component's table and input
	dc, ac *huffTable
	pred   int32 // previous block's DC (T.81 F.1.2.1)
}

// magnitude returns the size category of v and its appended bits: v itself
// if positive, v-1 (one's complement) if negative, in the low size bits.
func magnitude(v int32) (size uint, bitsv uint64) {
	m := v >> 31
	a := (v ^ m) - m
	size = uint(bits.Len32(uint32(a)))
	return size, uint64(uint32(v+m)) & (1<<size - 1)
}

// encodeBlock quantises and entropy-codes one 8x8 block of samples.
func (e *encoder) encodeBlock(b *[64]float32, c *component) {
	z := &e.zz
	mask := quantize(b, c.scale, z)
	// The bit writer's state lives in locals for the whole block; each
	// code is "shift in, and move a word out once 32 bits are pending"
	// (written out because a helper exceeds the inlining budget).
	acc, n, out := e.acc, e.nbits, e.out

	size, vb := magnitude(z[0] - c.pred)
	c.pred = z[0]
	hc := c.dc[size]
	acc, n = acc<<(uint(hc&0xff)+size)|uint64(hc>>8)<<size|vb, n+uint(hc&0xff)+size
	if n >= 32 {
		n -= 32
		out = putWord(out, uint32(acc>>n))
	}

	ac := c.ac
	last := 0
	for m := mask &^ 1; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		run := k - last - 1
		for ; run >= 16; run -= 16 {
			zrl := ac[0xf0]
			acc, n = acc<<(uint(zrl&0xff))|uint64(zrl>>8), n+uint(zrl&0xff)
			if n >= 32 {
				n -= 32
				out = putWord(out, uint32(acc>>n))
			}
		}
		size, vb := magnitude(z[k])
		if size > 10 {
			// Unreachable for 8-bit samples (|AC| < 1024) but keeps
			// the stream decodable should rounding ever overshoot.
			size, vb = 10, 1023
			if z[k] < 0 {
				vb = 0
			}
		}
		hc := ac[uint(run)<<4|size]
		acc, n = acc<<(uint(hc&0xff)+size)|uint64(hc>>8)<<size|vb, n+uint(hc&0xff)+size
		if n >= 32 {
			n -= 32
			out = putWord(out, uint32(acc>>n))
		}
		last = k
	}
	if last != 63 {
		eob := ac[0]
		acc, n = acc<<(uint(eob&0xff))|uint64(eob>>8), n+uint(eob&0xff)
		if n >= 32 {
			n -= 32
			out = putWord(out, uint32(acc>>n))
		}
	}
	e.acc, e.nbits, e.out = acc, n, out
}
