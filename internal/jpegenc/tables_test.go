package jpegenc

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"testing"
)

// segments splits a JPEG's header into marker -> payloads, stopping at SOS.
func segments(t *testing.T, data []byte) map[byte][][]byte {
	t.Helper()
	segs := map[byte][][]byte{}
	if !bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
		t.Fatal("no SOI")
	}
	p := data[2:]
	for len(p) >= 4 && p[0] == 0xff {
		marker, n := p[1], int(binary.BigEndian.Uint16(p[2:]))
		if n < 2 || len(p) < 2+n {
			t.Fatalf("bad segment %#x", marker)
		}
		segs[marker] = append(segs[marker], p[4:2+n])
		if marker == 0xda {
			return segs
		}
		p = p[2+n:]
	}
	t.Fatal("no SOS")
	return nil
}

// tablesByID splits DQT or DHT payloads into their tables keyed by the
// class/id byte, so order and grouping into segments do not matter.
func tablesByID(t *testing.T, payloads [][]byte, dht bool) map[byte][]byte {
	t.Helper()
	out := map[byte][]byte{}
	for _, p := range payloads {
		for len(p) > 0 {
			n := 65
			if dht {
				n = 17
				for _, c := range p[1:17] {
					n += int(c)
				}
			}
			out[p[0]] = p[1:n]
			p = p[n:]
		}
	}
	return out
}

// TestTablesMatchStdlib checks our transcription of the Annex K tables and
// the IJG quality scaling against what image/jpeg writes at every quality.
func TestTablesMatchStdlib(t *testing.T) {
	img := solid(16, 16, color.RGBA{10, 200, 30, 255})
	for q := 1; q <= 100; q++ {
		ours := segments(t, encodeOurs(t, img, q))
		std := segments(t, encodeStd(t, img, q))
		for _, m := range []struct {
			marker byte
			dht    bool
		}{{0xdb, false}, {0xc4, true}} {
			a, b := tablesByID(t, ours[m.marker], m.dht), tablesByID(t, std[m.marker], m.dht)
			if len(a) != len(b) || len(a) == 0 {
				t.Fatalf("q%d marker %#x: %d tables, image/jpeg %d", q, m.marker, len(a), len(b))
			}
			for id, tab := range b {
				if !bytes.Equal(a[id], tab) {
					t.Fatalf("q%d marker %#x table %#x:\n ours %v\n std  %v", q, m.marker, id, a[id], tab)
				}
			}
		}
		if !bytes.Equal(ours[0xc0][0], std[0xc0][0]) {
			t.Fatalf("q%d SOF0 %v, image/jpeg %v", q, ours[0xc0][0], std[0xc0][0])
		}
		if app := ours[0xe0]; len(app) != 1 || !bytes.HasPrefix(app[0], []byte("JFIF\x00")) {
			t.Fatalf("no JFIF APP0: %q", app)
		}
	}
}

// TestGrayHeaders checks a grayscale file carries only luma tables.
func TestGrayHeaders(t *testing.T) {
	s := segments(t, encodeOurs(t, image.NewGray(image.Rect(0, 0, 3, 3)), 88))
	if n := len(tablesByID(t, s[0xdb], false)); n != 1 {
		t.Errorf("%d quantisation tables, want 1", n)
	}
	if n := len(tablesByID(t, s[0xc4], true)); n != 2 {
		t.Errorf("%d Huffman tables, want 2", n)
	}
}

func TestZigzagIsPermutation(t *testing.T) {
	var seen [64]bool
	for k, n := range zigzag {
		if seen[n] {
			t.Fatalf("zigzag[%d]=%d repeats", k, n)
		}
		seen[n] = true
		if k > 0 {
			// Consecutive entries are neighbours (a step right, down or diagonal).
			p := zigzag[k-1]
			dr, dc := int(n/8)-int(p/8), int(n%8)-int(p%8)
			if dr < -1 || dr > 1 || dc < -1 || dc > 1 {
				t.Fatalf("zigzag jumps from %d to %d", p, n)
			}
		}
	}
}

func TestMagnitude(t *testing.T) {
	cases := []struct {
		v    int32
		size uint
		bits uint64
	}{
		{0, 0, 0}, {1, 1, 1}, {-1, 1, 0}, {2, 2, 2}, {-2, 2, 1}, {3, 2, 3}, {-3, 2, 0},
		{7, 3, 7}, {-4, 3, 3}, {1023, 10, 1023}, {-1023, 10, 0}, {2047, 11, 2047}, {-2047, 11, 0},
	}
	for _, c := range cases {
		size, b := magnitude(c.v)
		if size != c.size || b != c.bits {
			t.Errorf("magnitude(%d) = %d, %b; want %d, %b", c.v, size, b, c.size, c.bits)
		}
	}
}

func TestByteStuffing(t *testing.T) {
	out := putWord(nil, 0x12ff34ff)
	if want := []byte{0x12, 0xff, 0, 0x34, 0xff, 0}; !bytes.Equal(out, want) {
		t.Errorf("putWord = % x, want % x", out, want)
	}
	if out := putWord(nil, 0x7f8081fe); !bytes.Equal(out, []byte{0x7f, 0x80, 0x81, 0xfe}) {
		t.Errorf("putWord stuffed a word without 0xff: % x", out)
	}
	// Three bits 101 pad with ones to 0xbf; seven ones pad to 0xff, which is stuffed.
	if out := finishBits(0b101, 3, nil); !bytes.Equal(out, []byte{0xbf}) {
		t.Errorf("finishBits = % x", out)
	}
	if out := finishBits(0x7f, 7, nil); !bytes.Equal(out, []byte{0xff, 0}) {
		t.Errorf("finishBits = % x", out)
	}
}
