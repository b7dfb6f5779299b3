package builtin

import "image"

// resizeYCbCr scales the src rectangle of a YCbCr image (what JPEG decoders return) to a
// new w x h RGBA image, converting colour and resampling in one pass: bilinear on luma,
// nearest on the already subsampled chroma. Going through x/image/draw converts four
// source pixels per output pixel, which made it the largest cost of the image path.
func resizeYCbCr(img *image.YCbCr, src image.Rectangle, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xs, xw := bilinearTaps(src.Min.X-img.Rect.Min.X, src.Dx(), w, img.Rect.Dx())
	ys, yw := bilinearTaps(src.Min.Y-img.Rect.Min.Y, src.Dy(), h, img.Rect.Dy())
	hs, vs := chromaShift(img.SubsampleRatio)
	cxs := make([]int, w)
	for x := range w {
		// Nearest chroma sample of the output pixel's centre.
		cxs[x] = (xs[x] + int(xw[x]>>7)) >> hs
	}
	for y := range h {
		y0 := ys[y]
		y1 := min(y0+1, img.Rect.Dy()-1)
		wy := int32(yw[y])
		row0 := img.Y[y0*img.YStride:]
		row1 := img.Y[y1*img.YStride:]
		cy := (y0 + int(wy>>7)) >> vs
		cbRow := img.Cb[cy*img.CStride:]
		crRow := img.Cr[cy*img.CStride:]
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x := range w {
			x0 := xs[x]
			x1 := min(x0+1, img.Rect.Dx()-1)
			wx := int32(xw[x])
			top := int32(row0[x0])<<8 + (int32(row0[x1])-int32(row0[x0]))*wx
			bot := int32(row1[x0])<<8 + (int32(row1[x1])-int32(row1[x0]))*wx
			yy := top<<8 + (bot-top)*wy // luma * 65536
			yy += yy >> 8               // * 65793/65536, as image/color does
			cb := int32(cbRow[cxs[x]]) - 128
			cr := int32(crRow[cxs[x]]) - 128
			p := out[4*x : 4*x+4 : 4*x+4]
			p[0] = clampFix(yy + 91881*cr)
			p[1] = clampFix(yy - 22554*cb - 46802*cr)
			p[2] = clampFix(yy + 116130*cb)
			p[3] = 255
		}
	}
	return dst
}

// clampFix converts a 16.16 fixed-point channel value to 8 bits, clamped.
func clampFix(v int32) uint8 {
	v = (v + 1<<15) >> 16
	return uint8(min(max(v, 0), 255))
}

// bilinearTaps returns, per output index, the first source index and the weight (0..255)
// of the next one, for n outputs over the source span [off, off+span) of a line of size.
func bilinearTaps(off, span, n, size int) ([]int, []uint16) {
	idx, wt := make([]int, n), make([]uint16, n)
	scale := float64(span) / float64(n)
	for i := range n {
		s := (float64(i)+0.5)*scale - 0.5 + float64(off)
		s = clamp(s, 0, float64(size-1))
		i0 := int(s)
		idx[i], wt[i] = i0, uint16((s-float64(i0))*256)
		if wt[i] > 255 {
			wt[i] = 255
		}
	}
	return idx, wt
}

// chromaShift returns the horizontal and vertical chroma subsampling as shifts.
func chromaShift(r image.YCbCrSubsampleRatio) (hs, vs int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 1, 0
	case image.YCbCrSubsampleRatio420:
		return 1, 1
	case image.YCbCrSubsampleRatio440:
		return 0, 1
	default:
		return 0, 0
	}
}
