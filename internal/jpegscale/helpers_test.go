package jpegscale

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand"
	"testing"
)

// subsampleFactors returns the luma sampling factors for a ratio (chroma is 1x1).
func subsampleFactors(r image.YCbCrSubsampleRatio) (h, v int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return 2, 1
	case image.YCbCrSubsampleRatio420:
		return 2, 2
	case image.YCbCrSubsampleRatio440:
		return 1, 2
	case image.YCbCrSubsampleRatio411:
		return 4, 1
	case image.YCbCrSubsampleRatio410:
		return 4, 2
	}
	return 1, 1
}

// chromaSize is the chroma plane size of a w x h image at ratio r.
func chromaSize(w, h int, r image.YCbCrSubsampleRatio) (int, int) {
	hs, vs := subsampleFactors(r)
	return ceilDiv(w, hs), ceilDiv(h, vs)
}

// photo fills a YCbCr image with smooth gradients, a few hard edges and noise,
// roughly what a camera image looks like to a JPEG coder.
func photo(w, h int, r image.YCbCrSubsampleRatio, seed int64) *image.YCbCr {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), r)
	rng := rand.New(rand.NewSource(seed))
	hs, vs := subsampleFactors(r)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := 128 + 60*math.Sin(float64(x)/37+float64(y)/53) + 30*math.Cos(float64(x*y)/9000)
			if (x/97+y/61)%3 == 0 {
				v += 40 // edges between flat regions
			}
			v += rng.NormFloat64() * 6
			img.Y[y*img.YStride+x] = uint8(max(0, min(255, v)))
		}
	}
	cw, ch := ceilDiv(w, hs), ceilDiv(h, vs)
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			img.Cb[y*img.CStride+x] = uint8(128 + 50*math.Sin(float64(x*hs)/71) + rng.NormFloat64()*3)
			img.Cr[y*img.CStride+x] = uint8(128 + 50*math.Cos(float64(y*vs)/43) + rng.NormFloat64()*3)
		}
	}
	return img
}

// grayPhoto is the luma of photo as an *image.Gray.
func grayPhoto(w, h int, seed int64) *image.Gray {
	src := photo(w, h, image.YCbCrSubsampleRatio444, seed)
	return &image.Gray{Pix: src.Y, Stride: src.YStride, Rect: src.Rect}
}

// stdEncode encodes with image/jpeg (4:2:0 for colour, grayscale for Gray).
func stdEncode(t testing.TB, img image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// plane is one channel of a decoded image, restricted to its visible area.
type plane struct {
	pix          []byte
	stride, w, h int
}

// planes splits a decoded *image.Gray or *image.YCbCr into channels.
func planes(t *testing.T, img image.Image) []plane {
	t.Helper()
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	switch m := img.(type) {
	case *image.Gray:
		return []plane{{m.Pix, m.Stride, w, h}}
	case *image.YCbCr:
		cw, ch := chromaSize(w, h, m.SubsampleRatio)
		return []plane{{m.Y, m.YStride, w, h}, {m.Cb, m.CStride, cw, ch}, {m.Cr, m.CStride, cw, ch}}
	}
	t.Fatalf("unexpected image type %T", img)
	return nil
}

// boxDown averages d x d groups of samples (partial groups at the edges).
func boxDown(p plane, d int) plane {
	out := plane{w: ceilDiv(p.w, d), h: ceilDiv(p.h, d)}
	out.stride = out.w
	out.pix = make([]byte, out.w*out.h)
	for oy := 0; oy < out.h; oy++ {
		for ox := 0; ox < out.w; ox++ {
			sum, n := 0, 0
			for y := oy * d; y < min(oy*d+d, p.h); y++ {
				for x := ox * d; x < min(ox*d+d, p.w); x++ {
					sum += int(p.pix[y*p.stride+x])
					n++
				}
			}
			out.pix[oy*out.stride+ox] = uint8((sum + n/2) / n)
		}
	}
	return out
}

// meanAbsDiff compares two equally sized planes.
func meanAbsDiff(t *testing.T, a, b plane) float64 {
	t.Helper()
	if a.w != b.w || a.h != b.h {
		t.Fatalf("plane size %dx%d, want %dx%d", a.w, a.h, b.w, b.h)
	}
	sum := 0
	for y := 0; y < a.h; y++ {
		for x := 0; x < a.w; x++ {
			d := int(a.pix[y*a.stride+x]) - int(b.pix[y*b.stride+x])
			sum += max(d, -d)
		}
	}
	return float64(sum) / float64(a.w*a.h)
}
