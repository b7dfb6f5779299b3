package faces

import (
	"image"
	"image/color"
)

// grayImage is an 8-bit luma raster in the layout pigo's cascades read (row-major, stride = cols).
type grayImage struct {
	pix        []uint8
	cols, rows int
}

// downscaleGray returns the luma of img box-averaged so that its longest side is at most
// maxSide, and the factor k (working pixels per source pixel, k <= 1). Box averaging keeps
// small faces' contrast where point sampling would alias.
func downscaleGray(img image.Image, maxSide int) (grayImage, float64) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	k := 1.0
	if long := max(w, h); long > maxSide {
		k = float64(maxSide) / float64(long)
	}
	ow, oh := max(1, int(float64(w)*k+0.5)), max(1, int(float64(h)*k+0.5))
	out := grayImage{pix: make([]uint8, ow*oh), cols: ow, rows: oh}
	sums := make([]uint32, ow)
	counts := make([]uint32, ow)
	// colOf maps each source column to its output column once, not per pixel.
	colOf := make([]int, w)
	for x := range colOf {
		colOf[x] = min(ow-1, x*ow/w)
	}
	row := make([]uint8, w)
	oy := 0
	for y := 0; y < h; y++ {
		lumaRow(img, b.Min.Y+y, row)
		for x, v := range row {
			sums[colOf[x]] += uint32(v)
			counts[colOf[x]]++
		}
		// Flush when the next source row belongs to another output row (or at the end).
		if next := (y + 1) * oh / h; y == h-1 || next != oy {
			dst := out.pix[oy*ow : (oy+1)*ow]
			for i := range dst {
				if counts[i] > 0 {
					dst[i] = uint8((sums[i] + counts[i]/2) / counts[i])
				}
				sums[i], counts[i] = 0, 0
			}
			oy = min(oh-1, next)
		}
	}
	return out, k
}

// lumaRow fills row with the BT.601 luma of image row y, with fast paths for the decoder
// outputs seen in practice.
func lumaRow(img image.Image, y int, row []uint8) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		off := m.YOffset(b.Min.X, y)
		copy(row, m.Y[off:off+len(row)])
	case *image.Gray:
		off := m.PixOffset(b.Min.X, y)
		copy(row, m.Pix[off:off+len(row)])
	case *image.RGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range row {
			row[x] = luma8(p[4*x], p[4*x+1], p[4*x+2])
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range row {
			row[x] = luma8(p[4*x], p[4*x+1], p[4*x+2])
		}
	default:
		for x := range row {
			c := color.RGBAModel.Convert(img.At(b.Min.X+x, y)).(color.RGBA)
			row[x] = luma8(c.R, c.G, c.B)
		}
	}
}

// luma8 is BT.601 luma in integer arithmetic (weights sum to 1<<16).
func luma8(r, g, b uint8) uint8 {
	return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 1<<15) >> 16)
}
