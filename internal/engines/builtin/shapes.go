package builtin

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/vector"
)

// blendPix mixes colour c into the pixel at p with alpha a in [0,1].
func blendPix(p []uint8, c color.RGBA, a float64) {
	if a <= 0 {
		return
	}
	if a >= 1 {
		p[0], p[1], p[2], p[3] = c.R, c.G, c.B, 255
		return
	}
	ia := 1 - a
	p[0] = uint8(float64(p[0])*ia + float64(c.R)*a + 0.5)
	p[1] = uint8(float64(p[1])*ia + float64(c.G)*a + 0.5)
	p[2] = uint8(float64(p[2])*ia + float64(c.B)*a + 0.5)
}

// blend256 mixes colour c into the opaque pixel p with alpha t in [0,256]: integer
// maths, because it runs for most pixels of every render.
func blend256(p []uint8, c color.RGBA, t int32) {
	p = p[:4:4]
	p0, p1, p2 := int32(p[0]), int32(p[1]), int32(p[2])
	p[0] = uint8(p0 + ((int32(c.R)-p0)*t+128)>>8)
	p[1] = uint8(p1 + ((int32(c.G)-p1)*t+128)>>8)
	p[2] = uint8(p2 + ((int32(c.B)-p2)*t+128)>>8)
	p[3] = 255
}

// alpha256 converts an alpha in [0,1] to blend256's scale.
func alpha256(a float64) int32 { return int32(clamp(a, 0, 1)*256 + 0.5) }

// fillRect blends colour c over r with alpha a.
func fillRect(dst *image.RGBA, r image.Rectangle, c color.RGBA, a float64) {
	r = r.Intersect(dst.Rect)
	t := alpha256(a)
	if t == 0 {
		return
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := dst.Pix[dst.PixOffset(r.Min.X, y):]
		for x := 0; x < r.Dx(); x++ {
			blend256(row[4*x:], c, t)
		}
	}
}

// fillCircle blends a filled, edge-antialiased disc; soft fades it out towards the rim
// (a glow) instead of a hard edge. Hard discs compute coverage only at the rim.
func fillCircle(dst *image.RGBA, cx, cy, r float64, c color.RGBA, a float64, soft bool) {
	if r <= 0 || a <= 0 {
		return
	}
	ta := alpha256(a)
	y0 := max(int(cy-r-1), dst.Rect.Min.Y)
	y1 := min(int(cy+r+2), dst.Rect.Max.Y)
	inv := 1 / (r * r)
	fa := a * 256
	for y := y0; y < y1; y++ {
		dy := float64(y) + 0.5 - cy
		if dy*dy > (r+1)*(r+1) {
			continue
		}
		half := math.Sqrt(max(0, (r+1)*(r+1)-dy*dy))
		x0 := max(int(cx-half), dst.Rect.Min.X)
		x1 := min(int(cx+half+1), dst.Rect.Max.X)
		row := dst.Pix[dst.PixOffset(0, y):]
		if soft {
			// The falloff is a quadratic in x along the row: step it with two adds.
			dx := float64(x0) + 0.5 - cx
			t := 1 - (dx*dx+dy*dy)*inv
			dt := -(2*dx + 1) * inv
			const ddt = -2.0
			d2t := ddt * inv
			for x := x0; x < x1; x++ {
				if t > 0 {
					if k := int32(fa*t*t + 0.5); k > 0 {
						blend256(row[4*x:], c, k)
					}
				}
				t += dt
				dt += d2t
			}
			continue
		}
		// Pixels whose centre lies within r-0.5 are fully covered.
		in := -1.0
		if r > 0.5 && dy*dy < (r-0.5)*(r-0.5) {
			in = math.Sqrt((r-0.5)*(r-0.5) - dy*dy)
		}
		for x := x0; x < x1; x++ {
			dx := float64(x) + 0.5 - cx
			if dx > -in && dx < in {
				blend256(row[4*x:], c, ta)
				continue
			}
			cov := clamp(r-math.Sqrt(dx*dx+dy*dy)+0.5, 0, 1)
			if k := int32(fa*cov + 0.5); k > 0 {
				blend256(row[4*x:], c, k)
			}
		}
	}
}

// path collects polygons to fill in one rasterizer pass: one pass per colour keeps the
// cost proportional to the area covered once, not once per shape.
type path struct {
	pts [][]vec
}

type vec struct{ x, y float64 }

func (p *path) poly(pts ...vec) { p.pts = append(p.pts, pts) }

// circle adds a circle as a polygon; reverse winding makes it a hole inside another.
func (p *path) circle(cx, cy, r float64, reverse bool) {
	const n = 72
	pts := make([]vec, n)
	for i := range n {
		a := 2 * math.Pi * float64(i) / n
		if reverse {
			a = -a
		}
		pts[i] = vec{cx + r*math.Cos(a), cy + r*math.Sin(a)}
	}
	p.pts = append(p.pts, pts)
}

// fill rasterizes the collected polygons with colour c at alpha a, restricted to their
// bounding box so small shapes stay cheap.
func (p *path) fill(dst *image.RGBA, c color.RGBA, a float64) {
	if len(p.pts) == 0 {
		return
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, poly := range p.pts {
		for _, v := range poly {
			minX, minY = math.Min(minX, v.x), math.Min(minY, v.y)
			maxX, maxY = math.Max(maxX, v.x), math.Max(maxY, v.y)
		}
	}
	box := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1).Intersect(dst.Rect)
	if box.Empty() {
		p.pts = p.pts[:0]
		return
	}
	rs := rasterPool.Get().(*raster)
	defer rasterPool.Put(rs)
	r := &rs.r
	r.Reset(box.Dx(), box.Dy())
	ox, oy := float32(box.Min.X), float32(box.Min.Y)
	for _, poly := range p.pts {
		if len(poly) < 3 {
			continue
		}
		r.MoveTo(float32(poly[0].x)-ox, float32(poly[0].y)-oy)
		for _, v := range poly[1:] {
			r.LineTo(float32(v.x)-ox, float32(v.y)-oy)
		}
		r.ClosePath()
	}
	p.pts = p.pts[:0]
	// Coverage goes into a reused alpha mask (the rasterizer's fast path), then one
	// integer blend pass: x/image/vector's RGBA Over path costs several times more.
	n := box.Dx() * box.Dy()
	if cap(rs.mask.Pix) < n {
		rs.mask.Pix = make([]uint8, n)
	}
	rs.mask.Pix, rs.mask.Stride, rs.mask.Rect = rs.mask.Pix[:n], box.Dx(), image.Rect(0, 0, box.Dx(), box.Dy())
	r.DrawOp = draw.Src // the mask is reused: overwrite, never accumulate
	r.Draw(&rs.mask, rs.mask.Rect, image.Opaque, image.Point{})
	maskBlend(dst, box, rs.mask.Pix, box.Dx(), c, alpha256(a))
}

// raster is a reusable rasterizer and coverage mask.
type raster struct {
	r    vector.Rasterizer
	mask image.Alpha
}

var rasterPool = sync.Pool{New: func() any { return new(raster) }}

// maskBlend blends colour c with alpha ta (0..256) through mask (stride ms) over box,
// whose pixels are opaque. The per-pixel alpha ta*m/255 is a multiply and a shift.
func maskBlend(dst *image.RGBA, box image.Rectangle, mask []uint8, ms int, c color.RGBA, ta int32) {
	if ta == 0 {
		return
	}
	cr, cg, cb := int32(c.R), int32(c.G), int32(c.B)
	for y := range box.Dy() {
		row := dst.Pix[dst.PixOffset(box.Min.X, box.Min.Y+y):]
		mrow := mask[y*ms : y*ms+box.Dx()]
		for x, m := range mrow {
			if m == 0 {
				continue
			}
			t := ta
			if m != 255 {
				t = (ta*int32(m)*257 + 1<<15) >> 16
			}
			p := row[4*x : 4*x+3 : 4*x+3]
			p0, p1, p2 := int32(p[0]), int32(p[1]), int32(p[2])
			p[0] = uint8(p0 + ((cr-p0)*t+128)>>8)
			p[1] = uint8(p1 + ((cg-p1)*t+128)>>8)
			p[2] = uint8(p2 + ((cb-p2)*t+128)>>8)
		}
	}
}
