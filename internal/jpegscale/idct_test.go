package jpegscale

import (
	"math"
	"math/rand"
	"testing"
)

// refIDCT is the textbook inverse DCT (T.81 A.3.3) evaluated at the centres
// of n x n pixel groups from the low n x n coefficients, in float64.
func refIDCT(blk *[64]int32, n int) []float64 {
	out := make([]float64, n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			sum := 0.0
			for v := 0; v < n; v++ {
				for u := 0; u < n; u++ {
					sum += cc(u) * cc(v) * float64(blk[v*8+u]) *
						math.Cos(float64(2*x+1)*float64(u)*math.Pi/float64(2*n)) *
						math.Cos(float64(2*y+1)*float64(v)*math.Pi/float64(2*n))
				}
			}
			out[y*n+x] = math.Max(0, math.Min(255, sum/4+128))
		}
	}
	return out
}

func TestIDCTMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	idcts := []struct {
		n int
		f func(*[64]int32, []byte, int)
	}{
		{8, idct8}, {4, idct4}, {2, idct2},
		{1, func(b *[64]int32, dst []byte, stride int) { fillDC(b[0], dst, stride, 1) }},
	}
	for trial := 0; trial < 600; trial++ {
		var blk [64]int32
		// Coefficients shrink with frequency as in real images; some trials
		// are sparse, some dense, some saturate.
		for i := range blk {
			r, c := i/8, i%8
			if trial%3 == 0 && rng.Intn(4) != 0 {
				continue
			}
			blk[i] = int32(rng.NormFloat64() * 400 / float64(1+r+c))
		}
		blk[0] = int32(rng.Intn(2048) - 1024)
		for _, tc := range idcts {
			const stride = 11 // not the block width, to catch stride mistakes
			dst := make([]byte, stride*tc.n)
			b := blk
			tc.f(&b, dst, stride)
			want := refIDCT(&blk, tc.n)
			for y := 0; y < tc.n; y++ {
				for x := 0; x < tc.n; x++ {
					if d := math.Abs(float64(dst[y*stride+x]) - want[y*tc.n+x]); d > 1 {
						t.Fatalf("trial %d, %dx%d IDCT at (%d,%d): got %d, want %.2f", trial, tc.n, tc.n, x, y, dst[y*stride+x], want[y*tc.n+x])
					}
				}
			}
		}
	}
}
