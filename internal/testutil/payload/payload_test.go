package payload

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"testing"
)

// TestPayloadsDecode: the payloads are valid files of the announced size, and the large
// ones stay small on the wire.
func TestPayloadsDecode(t *testing.T) {
	for _, s := range [][2]int{{33, 17}, {200, 100}} {
		img, err := jpeg.Decode(bytes.NewReader(ProgressiveJPEG(s[0], s[1])))
		if err != nil || img.Bounds().Dx() != s[0] || img.Bounds().Dy() != s[1] {
			t.Fatalf("progressive JPEG %v: %v", s, err)
		}
		p, err := png.Decode(bytes.NewReader(PNG16(s[0], s[1], 1)))
		if err != nil || p.Bounds().Dx() != s[0] || p.Bounds().Dy() != s[1] {
			t.Fatalf("16-bit PNG %v: %v", s, err)
		}
	}
	if n, m := len(ProgressiveJPEG(7000, 7000)), len(PNG16(7000, 7000, 1)); n > 400_000 || m > 500_000 {
		t.Fatalf("7000x7000 payloads are %d and %d bytes", n, m)
	}
}
