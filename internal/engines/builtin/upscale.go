package builtin

import (
	"encoding/binary"
	"image"
)

// upscale2x fills dst from src, which is half dst's size (rounded up), by bilinear
// interpolation with pixel centres aligned: every output pixel is 3/4 of its nearest
// source pixel and 1/4 of the next one along each axis (edges clamp).
//
// It works on eight bytes (two pixels) at a time: 3/4 a + 1/4 b is the average of a
// with the average of a and b, and a bytewise average of two uint64 is four logic
// operations, within one level of the exact mix. Each source row is expanded
// horizontally once into a small ring of rows; every output row mixes two of them.
func upscale2x(dst, src *image.RGBA) {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if sw == 0 || sh == 0 || w == 0 || h == 0 {
		return
	}
	// pad is a source row with its edge pixels repeated once on each side (and slack
	// for the last eight-byte load); ring rows have room for a whole last pair.
	pad := make([]uint8, 4*(sw+4))
	var ring [3][]uint8
	for i := range ring {
		ring[i] = make([]uint8, 8*(sw+1))
	}
	expand := func(y int, out []uint8) {
		s := src.Pix[y*src.Stride : y*src.Stride+4*sw]
		copy(pad[4:], s)
		copy(pad[:4], s[:4])
		copy(pad[4*sw+4:4*sw+8], s[4*sw-4:])
		for j := 0; j < sw; j += 2 {
			l := binary.LittleEndian.Uint64(pad[4*j:])   // pixels j-1, j
			a := binary.LittleEndian.Uint64(pad[4*j+4:]) // pixels j, j+1
			r := binary.LittleEndian.Uint64(pad[4*j+8:]) // pixels j+1, j+2
			e, o := mix34(a, l), mix34(a, r)             // outputs 2j, 2j+2 and 2j+1, 2j+3
			binary.LittleEndian.PutUint64(out[8*j:], e&0xffffffff|o<<32)
			binary.LittleEndian.PutUint64(out[8*j+8:], e>>32|o&0xffffffff00000000)
		}
	}
	row := func(i int) []uint8 { return ring[i%3] }
	expand(0, row(0))
	for i := range sh {
		if i+1 < sh { // into the slot of row i-2, no longer needed
			expand(i+1, row(i+1))
		}
		cur, up, down := row(i), row(max(i-1, 0)), row(min(i+1, sh-1))
		if y := 2 * i; y < h {
			mixRows(dst.Pix[y*dst.Stride:y*dst.Stride+4*w], cur, up)
		}
		if y := 2*i + 1; y < h {
			mixRows(dst.Pix[y*dst.Stride:y*dst.Stride+4*w], cur, down)
		}
	}
}

// mix34 returns 3/4 a + 1/4 b for each byte, within one level: the rounded-up average
// of a with the rounded-down average of a and b.
func mix34(a, b uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	m := a&b + (a^b)>>1&low7
	return a | m - (a^m)>>1&low7
}

// mixRows writes mix34(near, far) into out, eight bytes at a time.
func mixRows(out, near, far []uint8) {
	n := len(out) &^ 7
	near, far = near[:len(out)], far[:len(out)]
	for i := 0; i < n; i += 8 {
		v := mix34(binary.LittleEndian.Uint64(near[i:]), binary.LittleEndian.Uint64(far[i:]))
		binary.LittleEndian.PutUint64(out[i:], v)
	}
	if n < len(out) { // one odd pixel
		v := mix34(uint64(binary.LittleEndian.Uint32(near[n:])), uint64(binary.LittleEndian.Uint32(far[n:])))
		binary.LittleEndian.PutUint32(out[n:], uint32(v))
	}
}
