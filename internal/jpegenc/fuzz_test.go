package jpegenc

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
)

// FuzzEncode builds a small image from the fuzz bytes, encodes it at a fuzzed
// quality and requires image/jpeg to decode it back at the same size.
func FuzzEncode(f *testing.F) {
	f.Add(uint8(1), uint8(1), uint8(88), []byte{255, 0, 0})
	f.Add(uint8(17), uint8(9), uint8(100), []byte{0, 255, 255, 255, 0, 0, 1, 2, 3})
	f.Add(uint8(40), uint8(3), uint8(1), []byte("text-like edges \xff\x00\xff\x00"))
	f.Add(uint8(2), uint8(33), uint8(50), []byte{0xff})
	f.Fuzz(func(t *testing.T, w, h, q uint8, pix []byte) {
		width, height := int(w%64)+1, int(h%64)+1
		quality := int(q%100) + 1
		m := image.NewRGBA(image.Rect(0, 0, width, height))
		if len(pix) > 0 {
			for i := range m.Pix {
				m.Pix[i] = pix[i%len(pix)] ^ byte(i*7)
			}
		}
		var buf bytes.Buffer
		if err := Encode(&buf, m, quality); err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(&buf)
		if err != nil {
			t.Fatalf("%dx%d q%d: decode: %v", width, height, quality, err)
		}
		if img.Bounds().Dx() != width || img.Bounds().Dy() != height {
			t.Fatalf("decoded %v, want %dx%d", img.Bounds(), width, height)
		}
	})
}
