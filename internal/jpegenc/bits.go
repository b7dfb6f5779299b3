package jpegenc

import "encoding/binary"

// The entropy coder keeps pending bits right-aligned in a uint64 (fewer than
// 32 after every put) and moves whole 32-bit words to the output, so a code
// plus its appended magnitude bits (at most 16+11) costs one shift and one or.

// putWord appends four entropy-coded bytes, stuffing a zero after each 0xFF
// (T.81 F.1.2.3) so the decoder never mistakes data for a marker. Kept out of
// line: the common case is one compare and a 4-byte append.
//
//go:noinline
func putWord(out []byte, w uint32) []byte {
	// x has a zero byte exactly where w has 0xFF (the classic haszero test).
	x := ^w
	if (x-0x01010101)&^x&0x80808080 == 0 {
		return binary.BigEndian.AppendUint32(out, w)
	}
	for s := 24; s >= 0; s -= 8 {
		b := byte(w >> s)
		out = append(out, b)
		if b == 0xff {
			out = append(out, 0)
		}
	}
	return out
}

// finishBits pads the final partial byte with 1 bits (T.81 F.1.2.3) and
// writes out the remaining whole bytes.
func finishBits(acc uint64, n uint, out []byte) []byte {
	if pad := (8 - n%8) % 8; pad > 0 {
		acc = acc<<pad | (1<<pad - 1)
		n += pad
	}
	for n >= 8 {
		n -= 8
		b := byte(acc >> n)
		out = append(out, b)
		if b == 0xff {
			out = append(out, 0)
		}
	}
	return out
}
