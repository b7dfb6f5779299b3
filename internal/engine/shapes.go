package engine

import (
	"image"
	"image/color"
	"math"

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

// fillRect blends colour c over r with alpha a.
func fillRect(dst *image.RGBA, r image.Rectangle, c color.RGBA, a float64) {
	r = r.Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := dst.Pix[dst.PixOffset(r.Min.X, y):]
		for x := 0; x < r.Dx(); x++ {
			blendPix(row[4*x:], c, a)
		}
	}
}

// fillCircle blends a filled, edge-antialiased disc; soft > 0 fades it out towards the
// rim (a glow) instead of a hard edge.
func fillCircle(dst *image.RGBA, cx, cy, r float64, c color.RGBA, a float64, soft bool) {
	if r <= 0 {
		return
	}
	y0 := max(int(cy-r-1), dst.Rect.Min.Y)
	y1 := min(int(cy+r+2), dst.Rect.Max.Y)
	for y := y0; y < y1; y++ {
		dy := float64(y) + 0.5 - cy
		if dy*dy > (r+1)*(r+1) {
			continue
		}
		half := math.Sqrt(max(0, (r+1)*(r+1)-dy*dy))
		x0 := max(int(cx-half), dst.Rect.Min.X)
		x1 := min(int(cx+half+1), dst.Rect.Max.X)
		row := dst.Pix[dst.PixOffset(0, y):]
		for x := x0; x < x1; x++ {
			dx := float64(x) + 0.5 - cx
			d2 := dx*dx + dy*dy
			var cov float64
			if soft {
				t := 1 - d2/(r*r)
				if t <= 0 {
					continue
				}
				cov = t * t
			} else {
				d := math.Sqrt(d2)
				cov = clamp(r-d+0.5, 0, 1)
			}
			blendPix(row[4*x:], c, a*cov)
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
		return
	}
	r := vector.NewRasterizer(box.Dx(), box.Dy())
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
	al := uint8(clamp(a*255, 0, 255))
	// Premultiplied source colour for the rasterizer's Over operator.
	src := image.NewUniform(color.RGBA{
		uint8(uint16(c.R) * uint16(al) / 255), uint8(uint16(c.G) * uint16(al) / 255),
		uint8(uint16(c.B) * uint16(al) / 255), al,
	})
	r.Draw(dst, box, src, image.Point{})
	p.pts = p.pts[:0]
}
