package pngscale

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand"
	"testing"
)

// testPNG describes a file written by encode: samples are given per pixel per channel at
// the file's depth; filters cycle through all five so unfiltering is exercised.
type testPNG struct {
	w, h, depth, ct int
	interlaced      bool
	samples         [][]uint16 // [y*w+x][channel]
	palette         []byte     // PLTE body
	trns            []byte     // tRNS body
	idatChunks      int        // split the zlib stream over this many IDATs (0: one)
}

func chunk(out *bytes.Buffer, kind string, body []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(body)))
	out.Write(n[:])
	out.WriteString(kind)
	out.Write(body)
	binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(kind), body...)))
	out.Write(n[:])
}

// packRow packs the samples of the given pixels at the file's depth.
func (t *testPNG) packRow(pixels []int) []byte {
	nc := Header{ColorType: t.ct, Depth: t.depth}.channels()
	row := make([]byte, (len(pixels)*nc*t.depth+7)/8)
	bit := 0
	for _, p := range pixels {
		for c := range nc {
			v := t.samples[p][c]
			switch t.depth {
			case 16:
				binary.BigEndian.PutUint16(row[bit/8:], v)
			case 8:
				row[bit/8] = byte(v)
			default:
				row[bit/8] |= byte(v) << (8 - t.depth - bit%8)
			}
			bit += t.depth
		}
	}
	return row
}

// filterRow applies filter f to raw against prev (both unfiltered).
func filterRow(f byte, raw, prev []byte, bpp int) []byte {
	out := append([]byte{f}, raw...)
	for i := range raw {
		var a, b, c byte
		if i >= bpp {
			a, c = raw[i-bpp], prev[i-bpp]
		}
		b = prev[i]
		switch f {
		case 1:
			out[1+i] = raw[i] - a
		case 2:
			out[1+i] = raw[i] - b
		case 3:
			out[1+i] = raw[i] - byte((int(a)+int(b))/2)
		case 4:
			out[1+i] = raw[i] - paeth(a, b, c)
		}
	}
	return out
}

func (t *testPNG) encode() []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(t.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(t.h))
	ihdr[8], ihdr[9] = byte(t.depth), byte(t.ct)
	if t.interlaced {
		ihdr[12] = 1
	}
	chunk(&out, "IHDR", ihdr)
	if t.palette != nil {
		chunk(&out, "PLTE", t.palette)
	}
	if t.trns != nil {
		chunk(&out, "tRNS", t.trns)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	passes := [][4]int{{0, 0, 1, 1}}
	if t.interlaced {
		passes = adam7[:]
	}
	nc := Header{ColorType: t.ct, Depth: t.depth}.channels()
	bpp := max(1, nc*t.depth/8)
	f := byte(0)
	for _, p := range passes {
		pw, ph := span(t.w, p[0], p[2]), span(t.h, p[1], p[3])
		if pw == 0 || ph == 0 {
			continue
		}
		prev := make([]byte, (pw*nc*t.depth+7)/8)
		for y := range ph {
			var pixels []int
			for x := range pw {
				pixels = append(pixels, (p[1]+y*p[3])*t.w+p[0]+x*p[2])
			}
			raw := t.packRow(pixels)
			zw.Write(filterRow(f, raw, prev, bpp))
			f = (f + 1) % 5
			prev = raw
		}
	}
	zw.Close()
	data := z.Bytes()
	parts := max(1, t.idatChunks)
	for i := range parts {
		chunk(&out, "IDAT", data[i*len(data)/parts:(i+1)*len(data)/parts])
	}
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// picture fills samples with gradients, edges and noise at the file's depth; alpha (when
// the colour type has it) runs from transparent to opaque.
func picture(w, h, depth, ct int, seed int64) *testPNG {
	t := &testPNG{w: w, h: h, depth: depth, ct: ct}
	rng := rand.New(rand.NewSource(seed))
	top := float64(int(1)<<depth - 1)
	nc := Header{ColorType: ct, Depth: depth}.channels()
	for y := range h {
		for x := range w {
			s := make([]uint16, nc)
			for c := range nc {
				v := 0.5 + 0.4*math.Sin(float64(x)/(7+float64(c)*3)+float64(y)/11) + rng.NormFloat64()*0.03
				if (x/13+y/9)%3 == 0 {
					v = 1 - v
				}
				if c == nc-1 && (ct == 4 || ct == 6) {
					v = float64(x) / float64(w-1)
				}
				s[c] = uint16(math.Round(max(0, min(1, v)) * top))
			}
			t.samples = append(t.samples, s)
		}
	}
	return t
}

// reference decodes with image/png and box-reduces to w x h with the same buckets.
func reference(t *testing.T, data []byte, w, h int) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/png: %v", err)
	}
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	sums := make([]uint64, 4*w*h)
	counts := make([]uint64, w*h)
	for y := range H {
		for x := range W {
			r, g, bl, a := img.At(x, y).RGBA()
			o := (y*h/H)*w + x*w/W
			sums[4*o] += uint64(r)
			sums[4*o+1] += uint64(g)
			sums[4*o+2] += uint64(bl)
			sums[4*o+3] += uint64(a)
			counts[o]++
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for o, n := range counts {
		for c := range 4 {
			out.Pix[4*o+c] = uint8((sums[4*o+c] + n*257/2) / (n * 257))
		}
	}
	return out
}

func compare(t *testing.T, name string, got, want *image.RGBA) {
	t.Helper()
	if got.Bounds() != want.Bounds() {
		t.Fatalf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
	}
	for i := range want.Pix {
		if d := int(got.Pix[i]) - int(want.Pix[i]); d > 1 || d < -1 {
			t.Fatalf("%s: byte %d (pixel %d) is %d, want %d", name, i, i/4, got.Pix[i], want.Pix[i])
		}
	}
}

// cases covers every colour type and depth, palettes with and without tRNS, tRNS keys,
// interlacing and IDAT split across chunks, at sizes that do not divide evenly.
func cases() map[string]*testPNG {
	m := map[string]*testPNG{}
	add := func(name string, t *testPNG) { m[name] = t }
	for _, ct := range []int{0, 2, 3, 4, 6} {
		depths := []int{8, 16}
		switch ct {
		case 0:
			depths = []int{1, 2, 4, 8, 16}
		case 3:
			depths = []int{1, 2, 4, 8}
		}
		for _, depth := range depths {
			for _, il := range []bool{false, true} {
				p := picture(67, 45, depth, ct, int64(ct*100+depth))
				p.interlaced = il
				p.idatChunks = 3
				if ct == 3 {
					n := 1 << depth
					for i := range n {
						p.palette = append(p.palette, byte(i*37), byte(255-i*11), byte(i*i))
						if i%3 == 0 {
							p.trns = append(p.trns, byte(i*53))
						} else if len(p.trns) < n/2 {
							p.trns = append(p.trns, 255)
						}
					}
				}
				add(fmt.Sprintf("ct%d-d%d-interlaced=%v", ct, depth, il), p)
			}
		}
	}
	g := picture(40, 30, 16, 0, 5)
	g.trns = []byte{byte(g.samples[7][0] >> 8), byte(g.samples[7][0])}
	add("gray16-trns", g)
	g4 := picture(40, 30, 4, 0, 6)
	g4.trns = []byte{0, byte(g4.samples[3][0])}
	add("gray4-trns", g4)
	rgb := picture(40, 30, 8, 2, 7)
	s := rgb.samples[11]
	rgb.trns = []byte{0, byte(s[0]), 0, byte(s[1]), 0, byte(s[2])}
	add("rgb8-trns", rgb)
	return m
}

func TestDecodeMatchesImagePNG(t *testing.T) {
	for name, tc := range cases() {
		data := tc.encode()
		for _, size := range [][2]int{{tc.w, tc.h}, {tc.w / 2, tc.h / 2}, {tc.w * 3 / 4, tc.h / 3}, {7, 5}, {1, 1}} {
			got, err := Decode(data, size[0], size[1])
			if err != nil {
				t.Fatalf("%s at %v: %v", name, size, err)
			}
			compare(t, fmt.Sprintf("%s at %dx%d", name, size[0], size[1]), got, reference(t, data, size[0], size[1]))
		}
	}
}

// TestStdlibFiles decodes what image/png writes, from every image type it encodes.
func TestStdlibFiles(t *testing.T) {
	rgba64 := image.NewNRGBA64(image.Rect(0, 0, 50, 31))
	gray16 := image.NewGray16(image.Rect(0, 0, 50, 31))
	pal := image.NewPaletted(image.Rect(0, 0, 50, 31), nil)
	for i := range 200 {
		pal.Palette = append(pal.Palette, colorAt(i))
	}
	for y := range 31 {
		for x := range 50 {
			v := uint16(x*1300 + y*700)
			binary.BigEndian.PutUint16(rgba64.Pix[y*rgba64.Stride+8*x:], v)
			binary.BigEndian.PutUint16(rgba64.Pix[y*rgba64.Stride+8*x+6:], uint16(y*2000))
			binary.BigEndian.PutUint16(gray16.Pix[y*gray16.Stride+2*x:], v^0x5555)
			pal.Pix[y*pal.Stride+x] = uint8((x + y) % 200)
		}
	}
	for name, img := range map[string]image.Image{"nrgba64": rgba64, "gray16": gray16, "paletted": pal} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		for _, size := range [][2]int{{50, 31}, {17, 10}} {
			got, err := Decode(buf.Bytes(), size[0], size[1])
			if err != nil {
				t.Fatal(err)
			}
			compare(t, name, got, reference(t, buf.Bytes(), size[0], size[1]))
		}
	}
}

// colorAt is palette entry i: some of them translucent.
func colorAt(i int) color.Color {
	return color.NRGBA{uint8(i * 7), uint8(255 - i), uint8(i * i), uint8(255 - (i%4)*60)}
}
