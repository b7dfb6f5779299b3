// Package payload builds the hostile payloads of issue 11 in code: files small on the wire
// whose pixels are huge. Each is deterministic and written row by row, never held as an
// image. It imports nothing of the project, so the decoders' own tests can use it
// (testutil, which starts servers, re-exports it).
package payload

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// blockColour is the colour of the block at (bx, by) of a payload's pattern.
func blockColour(bx, by, seed int) [3]uint16 {
	h := uint32(bx*73856093^by*19349663^seed*83492791) * 2654435761
	return [3]uint16{uint16(h >> 16), uint16(h >> 8 * 257), uint16(h * 4099)}
}

// PNG16 returns a w x h RGB PNG with 16-bit samples: blocks of one colour, so that every
// filtered row is nearly all zeros and the file stays a few hundred kilobytes.
func PNG16(w, h, seed int) []byte {
	const block = 350
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 2 // depth 16, RGB
	writeChunk(&out, "IHDR", ihdr)
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 1+6*w)
	zero := make([]byte, 1+6*w)
	zero[0] = 2 // Up: the same as the row above
	for y := range h {
		if y%block != 0 {
			zw.Write(zero)
			continue
		}
		row[0] = 1 // Sub: each pixel minus its left neighbour
		var prev [3]uint16
		for x := range w {
			c := blockColour(x/block, y/block, seed)
			for i := range 3 {
				binary.BigEndian.PutUint16(row[1+6*x+2*i:], c[i]-prev[i])
			}
			prev = c
		}
		zw.Write(row)
	}
	zw.Close()
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	return out.Bytes()
}

func writeChunk(out *bytes.Buffer, kind string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(kind))
	crc.Write(data)
	out.WriteString(kind)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}

// ZipOf returns a zip archive of the named files, stored (PNG data does not deflate).
func ZipOf(files map[string][]byte, order []string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range order {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		w.Write(files[name])
	}
	zw.Close()
	return buf.Bytes()
}

// ProgressiveJPEG returns a w x h progressive JPEG (4:2:0 YCbCr) of one flat colour: a DC
// scan of two bits a block and one AC scan per component made of end-of-band runs, so
// that a 7000x7000 picture is under 300 KB while a full-size decoder must hold all of it.
func ProgressiveJPEG(w, h int) []byte {
	var out bytes.Buffer
	out.Write([]byte{0xFF, 0xD8})
	// One quantisation table of ones.
	dqt := append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)
	segment(&out, 0xDB, dqt)
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0}
	segment(&out, 0xC2, sof)
	// DC table 0: category 0 is "00" (JPEG Annex K's luminance DC table).
	dcCounts := []byte{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}
	dcSyms := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	segment(&out, 0xC4, append(append([]byte{0x00}, dcCounts...), dcSyms...))
	// AC table 1: the fifteen end-of-band-run symbols EOB0..EOB14, four bits each.
	acCounts := []byte{0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	var acSyms []byte
	for n := range 15 {
		acSyms = append(acSyms, byte(n<<4))
	}
	segment(&out, 0xC4, append(append([]byte{0x11}, acCounts...), acSyms...))

	// DC first scan, interleaved: every block's difference is 0 (one flat colour).
	segment(&out, 0xDA, []byte{3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0})
	mcus := ((w + 15) / 16) * ((h + 15) / 16)
	var bw bitWriter
	for range mcus * 6 {
		bw.put(0, 2)
	}
	out.Write(bw.flush())
	// One AC scan (1..63) per component: end-of-band runs over every block.
	for i, c := range []struct{ hs, vs int }{{2, 2}, {1, 1}, {1, 1}} {
		segment(&out, 0xDA, []byte{1, byte(i + 1), 0x01, 1, 63, 0})
		cw, ch := ((w*c.hs+1)/2+7)/8, ((h*c.vs+1)/2+7)/8
		var bw bitWriter
		for left := cw * ch; left > 0; {
			run := min(left, 32767)
			n := 0
			for 2<<n <= run {
				n++
			}
			bw.put(uint32(n), 4)
			bw.put(uint32(run-1<<n), n)
			left -= run
		}
		out.Write(bw.flush())
	}
	out.Write([]byte{0xFF, 0xD9})
	return out.Bytes()
}

func segment(out *bytes.Buffer, marker byte, data []byte) {
	out.Write([]byte{0xFF, marker, byte((len(data) + 2) >> 8), byte(len(data) + 2)})
	out.Write(data)
}

// bitWriter packs entropy-coded bits, stuffing a zero after every 0xFF byte.
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits int
}

func (b *bitWriter) put(v uint32, n int) {
	b.acc = b.acc<<n | uint64(v)&(1<<n-1)
	b.nbits += n
	for b.nbits >= 8 {
		c := byte(b.acc >> (b.nbits - 8))
		b.buf = append(b.buf, c)
		if c == 0xFF {
			b.buf = append(b.buf, 0)
		}
		b.nbits -= 8
	}
}

// flush pads the last byte with ones, as the standard asks.
func (b *bitWriter) flush() []byte {
	if b.nbits > 0 {
		b.put(1<<(8-b.nbits)-1, 8-b.nbits)
	}
	return b.buf
}

// Describe names a payload for messages: "7000x7000 16-bit PNG (381 KB)".
func Describe(what string, data []byte) string {
	return fmt.Sprintf("%s (%d KB)", what, len(data)/1000)
}
