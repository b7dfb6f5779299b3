package jpegscale

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"testing"
)

// This file is a small baseline JPEG encoder for tests: image/jpeg only writes
// 4:2:0 colour or grayscale without restart markers, so 4:4:4, 4:2:2, 4:4:0,
// 4:1:1, restart intervals and non-interleaved scans are produced here. The
// quantisation and Huffman tables are lifted from an image/jpeg file of the
// same quality, and the reference decode is always image/jpeg's.

// encPlane is one component to encode with its sampling factors.
type encPlane struct {
	pix           []byte
	stride, w, h  int
	hs, vs        int
	tq, tdc, tac  uint8
	id            uint8
	pred          int
	code, codeLen [2]*[256]uint32
}

// encSpec describes the file to build.
type encSpec struct {
	width, height int
	planes        []*encPlane
	quality       int
	restart       int
	separate      bool // one scan per component instead of one interleaved scan
	// progressive codes the same coefficients as a progressive file (SOF2): one
	// interleaved DC scan, then one AC scan (1..63) per component, each block's
	// band ended by its own EOB, without successive approximation.
	progressive bool
}

// Which parts of a block encodeBlock codes.
const (
	codeAll = iota
	codeDC
	codeAC
)

// stdlibTables returns the DQT and DHT payloads image/jpeg uses at quality q.
func stdlibTables(t testing.TB, q int) (dqt, dht [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 16, 16)), &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for pos := 2; pos+4 <= len(b) && b[pos+1] != mSOS; {
		n := int(b[pos+2])<<8 | int(b[pos+3])
		payload := b[pos+4 : pos+2+n]
		switch b[pos+1] {
		case mDQT:
			dqt = append(dqt, payload)
		case mDHT:
			dht = append(dht, payload)
		}
		pos += 2 + n
	}
	return dqt, dht
}

// huffCodes derives the canonical code of every symbol of each DHT table.
func huffCodes(dht [][]byte) (codes, lens [2][4]*[256]uint32) {
	for _, p := range dht {
		for len(p) > 0 {
			tc, th := p[0]>>4, p[0]&15
			code, lenTab := new([256]uint32), new([256]uint32)
			c, k := uint32(0), 17
			for l := 1; l <= 16; l++ {
				for i := 0; i < int(p[l]); i++ {
					code[p[k]], lenTab[p[k]] = c, uint32(l)
					c++
					k++
				}
				c <<= 1
			}
			codes[tc][th], lens[tc][th] = code, lenTab
			p = p[k:]
		}
	}
	return codes, lens
}

// bitWriter emits entropy-coded bits with 0xFF byte stuffing.
type bitWriter struct {
	out []byte
	acc uint32
	n   uint
}

func (w *bitWriter) put(v uint32, size uint) {
	for i := int(size) - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | (v>>uint(i))&1
		w.n++
		if w.n == 8 {
			w.out = append(w.out, byte(w.acc))
			if byte(w.acc) == 0xFF {
				w.out = append(w.out, 0)
			}
			w.acc, w.n = 0, 0
		}
	}
}

// flush pads the last byte with one bits (T.81 F.1.2.3).
func (w *bitWriter) flush() {
	for w.n != 0 {
		w.put(1, 1)
	}
}

// category returns the magnitude category and the appended bits of v.
func category(v int) (uint, uint32) {
	a, s := v, uint(0)
	if a < 0 {
		a = -a
	}
	for a>>s != 0 {
		s++
	}
	if v < 0 {
		v += 1<<s - 1
	}
	return s, uint32(v) & (1<<s - 1)
}

// encodeBlock transforms, quantises and entropy-codes block (bx, by) of p,
// replicating edge samples beyond the plane.
func encodeBlock(w *bitWriter, p *encPlane, quant []byte, bx, by, part int) {
	var s [8][8]float64
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			sx, sy := min(bx*8+x, p.w-1), min(by*8+y, p.h-1)
			s[y][x] = float64(p.pix[sy*p.stride+sx]) - 128
		}
	}
	var zz [64]int
	for k := 0; k < 64; k++ {
		v, u := int(zigzag[k])/8, int(zigzag[k])%8
		sum := 0.0
		for y := 0; y < 8; y++ {
			for x := 0; x < 8; x++ {
				sum += s[y][x] * cosTable[x][u] * cosTable[y][v]
			}
		}
		f := sum / 4 * cc(u) * cc(v)
		zz[k] = int(math.Round(f / float64(quant[k])))
	}
	if part != codeAC {
		size, bits := category(zz[0] - p.pred)
		p.pred = zz[0]
		w.put(p.code[0][size], uint(p.codeLen[0][size]))
		w.put(bits, size)
	}
	if part == codeDC {
		return
	}
	run := 0
	for k := 1; k < 64; k++ {
		if zz[k] == 0 {
			run++
			continue
		}
		for ; run >= 16; run -= 16 {
			w.put(p.code[1][0xF0], uint(p.codeLen[1][0xF0]))
		}
		size, bits := category(zz[k])
		rs := run<<4 | int(size)
		w.put(p.code[1][rs], uint(p.codeLen[1][rs]))
		w.put(bits, size)
		run = 0
	}
	if run > 0 {
		w.put(p.code[1][0], uint(p.codeLen[1][0]))
	}
}

// cosTable[x][u] is cos((2x+1) u pi / 16).
var cosTable = func() (t [8][8]float64) {
	for x := range t {
		for u := range t[x] {
			t[x][u] = math.Cos(float64(2*x+1) * float64(u) * math.Pi / 16)
		}
	}
	return t
}()

func cc(u int) float64 {
	if u == 0 {
		return 1 / math.Sqrt2
	}
	return 1
}

// segment appends a marker segment.
func segment(out []byte, m byte, payload []byte) []byte {
	n := len(payload) + 2
	out = append(out, 0xFF, m, byte(n>>8), byte(n))
	return append(out, payload...)
}

// encodeTest builds the JPEG described by spec.
func encodeTest(t testing.TB, spec encSpec) []byte {
	t.Helper()
	dqt, dht := stdlibTables(t, spec.quality)
	codes, lens := huffCodes(dht)
	var quant [4][]byte
	for _, p := range dqt {
		for len(p) >= 65 {
			quant[p[0]&15] = p[1:65]
			p = p[65:]
		}
	}
	out := []byte{0xFF, mSOI}
	for _, p := range dqt {
		out = segment(out, mDQT, p)
	}
	sof := []byte{8, byte(spec.height >> 8), byte(spec.height), byte(spec.width >> 8), byte(spec.width), byte(len(spec.planes))}
	hmax, vmax := 1, 1
	for _, p := range spec.planes {
		sof = append(sof, p.id, byte(p.hs<<4|p.vs), p.tq)
		hmax, vmax = max(hmax, p.hs), max(vmax, p.vs)
		p.code = [2]*[256]uint32{codes[0][p.tdc], codes[1][p.tac]}
		p.codeLen = [2]*[256]uint32{lens[0][p.tdc], lens[1][p.tac]}
	}
	sofMarker := byte(mSOF0)
	if spec.progressive {
		sofMarker = mSOF2
	}
	out = segment(out, sofMarker, sof)
	for _, p := range dht {
		out = segment(out, mDHT, p)
	}
	if spec.restart > 0 {
		out = segment(out, mDRI, []byte{byte(spec.restart >> 8), byte(spec.restart)})
	}
	scans := [][]*encPlane{spec.planes}
	if spec.separate || len(spec.planes) == 1 {
		scans = nil
		for _, p := range spec.planes {
			scans = append(scans, []*encPlane{p})
		}
	}
	parts := make([]int, len(scans)) // codeAll
	if spec.progressive {
		scans = [][]*encPlane{spec.planes}
		parts = []int{codeDC}
		for _, p := range spec.planes {
			scans = append(scans, []*encPlane{p})
			parts = append(parts, codeAC)
		}
	}
	for i, sc := range scans {
		sos := []byte{byte(len(sc))}
		for _, p := range sc {
			sos = append(sos, p.id, p.tdc<<4|p.tac)
			p.pred = 0
		}
		band := []byte{0, 63, 0}
		switch parts[i] {
		case codeDC:
			band = []byte{0, 0, 0}
		case codeAC:
			band = []byte{1, 63, 0}
		}
		out = segment(out, mSOS, append(sos, band...))
		out = encodeScan(out, spec, sc, quant, hmax, vmax, parts[i])
	}
	return append(out, 0xFF, mEOI)
}

// encodeScan writes one scan's entropy-coded data with restart markers.
func encodeScan(out []byte, spec encSpec, sc []*encPlane, quant [4][]byte, hmax, vmax, part int) []byte {
	w := &bitWriter{out: out}
	var mcus [][2]int // MCU origins in blocks of the first component
	if len(sc) == 1 {
		p := sc[0]
		for by := 0; by < (p.h+7)/8; by++ {
			for bx := 0; bx < (p.w+7)/8; bx++ {
				mcus = append(mcus, [2]int{bx, by})
			}
		}
	} else {
		for my := 0; my < (spec.height+8*vmax-1)/(8*vmax); my++ {
			for mx := 0; mx < (spec.width+8*hmax-1)/(8*hmax); mx++ {
				mcus = append(mcus, [2]int{mx, my})
			}
		}
	}
	rst := 0
	for i, m := range mcus {
		if spec.restart > 0 && i > 0 && i%spec.restart == 0 {
			w.flush()
			w.out = append(w.out, 0xFF, byte(mRST0+rst))
			rst = (rst + 1) & 7
			for _, p := range sc {
				p.pred = 0
			}
		}
		if len(sc) == 1 {
			encodeBlock(w, sc[0], quant[sc[0].tq], m[0], m[1], part)
			continue
		}
		for _, p := range sc {
			for by := 0; by < p.vs; by++ {
				for bx := 0; bx < p.hs; bx++ {
					encodeBlock(w, p, quant[p.tq], m[0]*p.hs+bx, m[1]*p.vs+by, part)
				}
			}
		}
	}
	w.flush()
	return w.out
}

// ycbcrSpec makes an encSpec for a YCbCr image with its own subsampling.
func ycbcrSpec(img *image.YCbCr, quality int) encSpec {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	cw, ch := chromaSize(w, h, img.SubsampleRatio)
	hs, vs := subsampleFactors(img.SubsampleRatio)
	return encSpec{width: w, height: h, quality: quality, planes: []*encPlane{
		{pix: img.Y, stride: img.YStride, w: w, h: h, hs: hs, vs: vs, id: 1},
		{pix: img.Cb, stride: img.CStride, w: cw, h: ch, hs: 1, vs: 1, id: 2, tq: 1, tdc: 1, tac: 1},
		{pix: img.Cr, stride: img.CStride, w: cw, h: ch, hs: 1, vs: 1, id: 3, tq: 1, tdc: 1, tac: 1},
	}}
}

// graySpec makes an encSpec for a grayscale image.
func graySpec(img *image.Gray, quality int) encSpec {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	return encSpec{width: w, height: h, quality: quality, planes: []*encPlane{
		{pix: img.Pix, stride: img.Stride, w: w, h: h, hs: 1, vs: 1, id: 1},
	}}
}
