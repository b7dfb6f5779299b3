package jpegenc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"testing"
)

var qualities = []int{50, 75, 88, 95, 100}

// TestMatchesStdlib encodes every test image at every quality and size,
// decodes with image/jpeg, and holds the result to image/jpeg's own: PSNR
// within 0.5 dB (or better) and size within 10%, plus a floor for smooth content.
func TestMatchesStdlib(t *testing.T) {
	sizes := [][2]int{{1, 1}, {2, 3}, {7, 5}, {16, 16}, {17, 15}, {33, 31}, {64, 48}, {101, 37}}
	for _, ti := range testImages {
		for _, sz := range sizes {
			img := ti.gen(sz[0], sz[1])
			for _, q := range qualities {
				t.Run(fmt.Sprintf("%s/%dx%d/q%d", ti.name, sz[0], sz[1], q), func(t *testing.T) {
					ours := encodeOurs(t, img, q)
					std := encodeStd(t, img, q)
					pOurs := psnr(img, decode(t, ours, img.Rect))
					pStd := psnr(img, decode(t, std, img.Rect))
					// Above 45 dB the two differ only by +-1 rounding of a few samples.
					if pOurs < pStd-ti.slack && pOurs < 45 {
						t.Errorf("PSNR %.2f dB, image/jpeg %.2f dB", pOurs, pStd)
					}
					// A gradient squeezed into a few pixels is not smooth.
					if ti.smooth && q >= 88 && min(sz[0], sz[1]) >= 31 && pOurs < 30 {
						t.Errorf("PSNR %.2f dB on smooth content, want > 30", pOurs)
					}
					// Compare entropy-coded sizes: ours carries an 18-byte APP0.
					if n, m := len(ours)-len(app0), len(std); sz[0]*sz[1] >= 1024 && float64(n) > 1.1*float64(m) {
						t.Errorf("size %d bytes, image/jpeg %d", n, m)
					}
				})
			}
		}
	}
}

// TestInputTypes checks the Gray, YCbCr and generic paths against the RGBA
// path and image/jpeg, including sub-images whose bounds do not start at 0.
func TestInputTypes(t *testing.T) {
	src := gradient(45, 29)
	ycc420 := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio420)
	ycc444 := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio444)
	gray := image.NewGray(src.Rect)
	nrgba := image.NewNRGBA(src.Rect)
	for y := range src.Rect.Dy() {
		for x := range src.Rect.Dx() {
			c := src.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			for _, m := range []*image.YCbCr{ycc420, ycc444} {
				m.Y[m.YOffset(x, y)] = yy
				m.Cb[m.COffset(x, y)] = cb
				m.Cr[m.COffset(x, y)] = cr
			}
			gray.SetGray(x, y, color.Gray{Y: yy})
			nrgba.SetNRGBA(x, y, color.NRGBA{c.R, c.G, c.B, 255})
		}
	}
	sub := image.Rect(3, 2, 40, 27)
	subOdd := image.Rect(3, 3, 40, 27)
	cases := []struct {
		name string
		img  image.Image
	}{
		{"rgba", src},
		{"rgba-sub", src.SubImage(sub)},
		{"ycbcr420", ycc420},
		{"ycbcr420-sub-even", ycc420.SubImage(image.Rect(4, 2, 40, 27))},
		{"ycbcr420-sub-odd", ycc420.SubImage(subOdd)},
		{"ycbcr444", ycc444},
		{"gray", gray},
		{"gray-sub", gray.SubImage(sub)},
		{"nrgba", nrgba},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, q := range qualities {
				ours := encodeOurs(t, c.img, q)
				pOurs := psnr(c.img, decode(t, ours, c.img.Bounds()))
				pStd := psnr(c.img, decode(t, encodeStd(t, c.img, q), c.img.Bounds()))
				if pOurs < pStd-0.5 && pOurs < 45 {
					t.Errorf("q%d: PSNR %.2f dB, image/jpeg %.2f dB", q, pOurs, pStd)
				}
			}
		})
	}
}

func TestGrayIsSingleComponent(t *testing.T) {
	data := encodeOurs(t, image.NewGray(image.Rect(0, 0, 9, 9)), 88)
	img := decode(t, data, image.Rect(0, 0, 9, 9))
	if _, ok := img.(*image.Gray); !ok {
		t.Fatalf("decoded %T, want *image.Gray", img)
	}
}

func TestDeterministic(t *testing.T) {
	img := edges(77, 53)
	first := encodeOurs(t, img, 88)
	for range 3 {
		if !bytes.Equal(first, encodeOurs(t, img, 88)) {
			t.Fatal("output differs between encodes of the same image")
		}
	}
	// A pooled encoder reused for another quality must not leak state.
	encodeOurs(t, noise(50, 50), 30)
	if !bytes.Equal(first, encodeOurs(t, img, 88)) {
		t.Fatal("output changed after encoding another image")
	}
}

func TestInvalidArguments(t *testing.T) {
	ok := solid(8, 8, color.RGBA{1, 2, 3, 255})
	cases := []struct {
		name string
		img  image.Image
		q    int
	}{
		{"nil image", nil, 88},
		{"nil rgba", (*image.RGBA)(nil), 88},
		{"quality 0", ok, 0},
		{"quality 101", ok, 101},
		{"quality negative", ok, -5},
		{"zero width", image.NewRGBA(image.Rect(0, 0, 0, 10)), 88},
		{"zero height", image.NewRGBA(image.Rect(0, 0, 10, 0)), 88},
		{"too wide", image.NewGray(image.Rect(0, 0, 65536, 1)), 88},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Encode(&buf, c.img, c.q)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteErrorReturned(t *testing.T) {
	for _, sz := range []int{8, 400} { // one flush at the end; several mid-image
		if err := Encode(failWriter{}, noise(sz, sz), 95); !errors.Is(err, errWrite) {
			t.Errorf("%dx%d: err = %v, want the writer's error", sz, sz, err)
		}
	}
}

func TestAllocs(t *testing.T) {
	img := gradient(128, 96)
	var buf bytes.Buffer
	encodeOurs(t, img, 88) // warm the pool
	n := testing.AllocsPerRun(20, func() {
		buf.Reset()
		if err := Encode(&buf, img, 88); err != nil {
			t.Fatal(err)
		}
	})
	// The pool may be emptied by a GC mid-run; steady state is zero.
	if n > 1 {
		t.Errorf("%.1f allocations per Encode, want none in steady state", n)
	}
}
