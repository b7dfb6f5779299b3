package jpegscale

import "fmt"

// lutBits is the look-ahead of the fast tables: most JPEG codes are at most 9 bits.
const lutBits = 9

// huffTable is a decoding table for one DHT entry.
type huffTable struct {
	// lut maps the next lutBits bits to length<<8|symbol; 0 means a longer code.
	lut [1 << lutBits]uint16
	// fastAC (AC tables only) maps the next lutBits bits, when they hold a
	// whole code plus its extra bits, to value<<16|run<<8|bitsUsed; 0 otherwise.
	fastAC  [1 << lutBits]int32
	maxcode [17]int32 // largest code of each length, -1 if none
	valptr  [17]int32 // index into vals of a code of each length, minus that code
	vals    [256]uint8
}

// build derives the canonical codes (T.81 Annex C) and the lookup tables.
func (h *huffTable) build(counts *[16]int, vals []byte, ac bool) error {
	*h = huffTable{}
	copy(h.vals[:], vals)
	code, k := int32(0), 0
	for l := 1; l <= 16; l++ {
		n := counts[l-1]
		h.maxcode[l] = -1
		if n > 0 {
			h.valptr[l] = int32(k) - code
			for i := 0; i < n; i++ {
				if code >= 1<<l {
					return fmt.Errorf("%w: oversubscribed Huffman table", ErrFormat)
				}
				if l <= lutBits {
					// Every lutBits-bit string that starts with this code.
					shift := lutBits - l
					base := int(code) << shift
					for j := 0; j < 1<<shift; j++ {
						h.lut[base+j] = uint16(l)<<8 | uint16(vals[k])
					}
				}
				code++
				k++
			}
			h.maxcode[l] = code - 1
		}
		code <<= 1
	}
	if ac {
		h.buildFastAC()
	}
	return nil
}

// buildFastAC precomputes run, value and bit count for short code+value pairs
// so the common AC coefficient costs one lookup.
func (h *huffTable) buildFastAC() {
	for i, e := range h.lut {
		if e == 0 {
			continue
		}
		l, rs := int(e>>8), int(e&0xFF)
		run, s := rs>>4, rs&15
		if s == 0 || l+s > lutBits {
			continue
		}
		v := int32(i>>(lutBits-l-s)) & (1<<s - 1)
		if v < 1<<(s-1) {
			v += -1<<s + 1
		}
		h.fastAC[i] = v<<16 | int32(run)<<8 | int32(l+s)
	}
}
