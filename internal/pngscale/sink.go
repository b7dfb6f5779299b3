package pngscale

import "image"

// sink sums premultiplied 16-bit pixels of a W x H source into the w x h output pixels
// they fall in: source column x belongs to output column x*w/W, row y to y*h/H.
type sink struct {
	W, H, w, h int
	xmap       []int32  // source column -> output column
	xcount     []uint32 // source columns per output column
	acc        []uint32 // RGBA sums: one output row, or all of them (interlaced)
	whole      bool
	row        int // the output row acc holds when !whole
	out        *image.RGBA
}

func newSink(W, H, w, h int, whole bool) *sink {
	s := &sink{W: W, H: H, w: w, h: h, whole: whole, row: -1,
		xmap: make([]int32, W), xcount: make([]uint32, w),
		out: image.NewRGBA(image.Rect(0, 0, w, h))}
	for x := range W {
		ox := int32(int64(x) * int64(w) / int64(W))
		s.xmap[x] = ox
		s.xcount[ox]++
	}
	n := 4 * w
	if whole {
		n *= h
	}
	s.acc = make([]uint32, n)
	return s
}

// rowsIn is the number of source rows that fall in output row oy.
func (s *sink) rowsIn(oy int) uint32 {
	// Source rows y with y*h/H == oy: from ceil(oy*H/h) to ceil((oy+1)*H/h) - 1.
	first := (int64(oy)*int64(s.H) + int64(s.h) - 1) / int64(s.h)
	next := (int64(oy+1)*int64(s.H) + int64(s.h) - 1) / int64(s.h)
	return uint32(min(next, int64(s.H)) - first)
}

// addRow adds the pixels of source row y at columns x0, x0+dx, ...
func (s *sink) addRow(y, x0, dx int, px []uint16) {
	oy := int(int64(y) * int64(s.h) / int64(s.H))
	acc := s.acc
	if s.whole {
		acc = acc[oy*4*s.w : (oy+1)*4*s.w]
	} else if oy != s.row {
		if s.row >= 0 {
			s.flush(s.row, acc)
		}
		clear(acc)
		s.row = oy
	}
	xmap := s.xmap
	for i, x := 0, x0; 4*i < len(px); i, x = i+1, x+dx {
		a := acc[4*xmap[x] : 4*xmap[x]+4 : 4*xmap[x]+4]
		p := px[4*i : 4*i+4 : 4*i+4]
		a[0] += uint32(p[0])
		a[1] += uint32(p[1])
		a[2] += uint32(p[2])
		a[3] += uint32(p[3])
	}
}

// flush writes output row oy from its sums: the mean, rounded, in 8 bits.
func (s *sink) flush(oy int, acc []uint32) {
	ny := uint64(s.rowsIn(oy))
	pix := s.out.Pix[oy*s.out.Stride : oy*s.out.Stride+4*s.w]
	for ox := range s.w {
		div := uint64(s.xcount[ox]) * ny * 257
		for c := range 4 {
			pix[4*ox+c] = uint8((uint64(acc[4*ox+c]) + div/2) / div)
		}
	}
}

// finish flushes what is left and returns the output.
func (s *sink) finish() *image.RGBA {
	if s.whole {
		for oy := range s.h {
			s.flush(oy, s.acc[oy*4*s.w:(oy+1)*4*s.w])
		}
	} else if s.row >= 0 {
		s.flush(s.row, s.acc)
	}
	s.acc = nil
	return s.out
}
