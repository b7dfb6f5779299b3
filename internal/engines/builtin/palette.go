package builtin

import (
	"image"
	"image/color"
	"sort"
)

// Palette returns k dominant colours of img by k-means in RGB on a sample grid, most
// frequent first. Deterministic: centres start from evenly spaced luminance quantiles
// and ties break by colour value, so equal images give equal palettes.
func Palette(img image.Image, k int) []color.RGBA {
	if k <= 0 {
		return nil
	}
	small := resize(img, min(64, max(1, img.Bounds().Dx())), min(64, max(1, img.Bounds().Dy())))
	n := len(small.Pix) / 4
	pts := make([][3]float64, n)
	for i := range n {
		p := small.Pix[4*i:]
		pts[i] = [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	sort.Slice(pts, func(a, b int) bool { return lumaOf(pts[a]) < lumaOf(pts[b]) })
	k = min(k, n)
	centres := make([][3]float64, k)
	for i := range centres {
		centres[i] = pts[(2*i+1)*n/(2*k)]
	}
	assign := make([]int, n)
	for range 12 {
		var sum = make([][4]float64, k)
		for i, p := range pts {
			best, bd := 0, 1e18
			for j, c := range centres {
				d := sq(p[0]-c[0]) + sq(p[1]-c[1]) + sq(p[2]-c[2])
				if d < bd {
					best, bd = j, d
				}
			}
			assign[i] = best
			sum[best][0] += p[0]
			sum[best][1] += p[1]
			sum[best][2] += p[2]
			sum[best][3]++
		}
		for j := range centres {
			if sum[j][3] > 0 {
				centres[j] = [3]float64{sum[j][0] / sum[j][3], sum[j][1] / sum[j][3], sum[j][2] / sum[j][3]}
			}
		}
	}
	count := make([]int, k)
	for _, a := range assign {
		count[a]++
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if count[idx[a]] != count[idx[b]] {
			return count[idx[a]] > count[idx[b]]
		}
		return lumaOf(centres[idx[a]]) < lumaOf(centres[idx[b]])
	})
	out := make([]color.RGBA, k)
	for i, j := range idx {
		c := centres[j]
		out[i] = rgb(clamp8(c[0]), clamp8(c[1]), clamp8(c[2]))
	}
	return out
}

func lumaOf(p [3]float64) float64 { return 0.299*p[0] + 0.587*p[1] + 0.114*p[2] }

func sq(v float64) float64 { return v * v }
