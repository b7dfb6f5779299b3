package jpegscale

import (
	"encoding/binary"
	"errors"
	"io"
)

var errBadHuffman = errors.New("jpegscale: invalid Huffman code")

// maxPad bounds how many zero bytes the reader invents past a marker or the
// end of data before calling the stream truncated; a legitimate scan needs at
// most the 8 bytes of look-ahead.
const maxPad = 64

// bitReader reads entropy-coded bits MSB first, removing stuffed zero bytes.
// Bits live left-aligned in a 64-bit accumulator so decoding is a shift and a
// table lookup; fill runs only when fewer than the needed bits remain.
type bitReader struct {
	data []byte
	pos  int
	acc  uint64 // valid bits are the top n bits
	n    int
	pad  int // zero bytes fed since a marker or the end of data
	err  error
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// fill tops the accumulator up to more than 56 bits. At a marker or the end
// of data it feeds zero bytes (T.81 leaves this to the decoder; libjpeg does
// the same) and gives up after maxPad of them.
func (br *bitReader) fill() {
	if br.pos+8 <= len(br.data) {
		x := binary.BigEndian.Uint64(br.data[br.pos:])
		// Common case: no 0xFF among the next 8 bytes, so no stuffing or marker.
		if (^x-lo8)&x&hi8 == 0 {
			nb := (64 - br.n) >> 3
			bits := uint(nb * 8)
			br.acc |= x >> (64 - bits) << (64 - bits - uint(br.n))
			br.n += int(bits)
			br.pos += nb
			return
		}
	}
	for br.n <= 56 {
		var b byte
		switch {
		case br.pos >= len(br.data):
			br.pad++
		case br.data[br.pos] != 0xFF:
			b = br.data[br.pos]
			br.pos++
		case br.pos+1 < len(br.data) && br.data[br.pos+1] == 0:
			b = 0xFF
			br.pos += 2
		default:
			br.pad++ // a marker: stay in front of it
		}
		br.acc |= uint64(b) << (56 - br.n)
		br.n += 8
	}
	if br.pad > maxPad && br.err == nil {
		br.err = io.ErrUnexpectedEOF
	}
}

// receiveExtend reads an s-bit magnitude category value (T.81 F.2.2.1); the
// caller guarantees at least s bits are buffered and 0 < s < 16.
func (br *bitReader) receiveExtend(s uint8) int32 {
	v := int32(br.acc >> (64 - s))
	br.acc <<= s
	br.n -= int(s)
	if v < 1<<(s-1) {
		v += -1<<s + 1
	}
	return v
}

// decode reads one Huffman symbol: a 9-bit table lookup, or a canonical-code
// walk (T.81 F.2.2.3) for longer codes.
func (br *bitReader) decode(h *huffTable) uint8 {
	if br.n < 16 {
		br.fill()
	}
	if e := h.lut[br.acc>>(64-lutBits)]; e != 0 {
		l := e >> 8
		br.acc <<= l
		br.n -= int(l)
		return uint8(e)
	}
	for l := lutBits + 1; l <= 16; l++ {
		code := int32(br.acc >> (64 - l))
		if code <= h.maxcode[l] {
			br.acc <<= l
			br.n -= l
			return h.vals[uint8(h.valptr[l]+code)]
		}
	}
	if br.err == nil {
		br.err = errBadHuffman
	}
	return 0
}

// restart discards buffered bits and moves past the next RSTn marker (T.81
// F.2.2.5 / E.2.4); junk before it is skipped, other markers are left alone.
func (br *bitReader) restart() {
	br.acc, br.n, br.pad = 0, 0, 0
	for br.pos+1 < len(br.data) {
		if br.data[br.pos] != 0xFF {
			br.pos++
			continue
		}
		m := br.data[br.pos+1]
		switch {
		case m >= mRST0 && m <= mRST7:
			br.pos += 2
			return
		case m == 0 || m == 0xFF:
			br.pos++
		default:
			return
		}
	}
}
