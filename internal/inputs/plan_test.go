package inputs

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"testing"

	"thumbforge/internal/jpegscale"
	"thumbforge/internal/pngscale"
)

// TestPlanCosts: the reservations are what the scaled decoders announce, and image/jpeg's
// full-size cost when the fast decoder is not there to take the file.
func TestPlanCosts(t *testing.T) {
	prog, err := os.ReadFile("../jpegscale/testdata/progressive/p420-q85.jpg")
	if err != nil {
		t.Fatal(err)
	}
	l := newLoader(t, Config{Decoder: jpegscale.Decode, DecodeMinSide: 40})
	info, err := jpegscale.Inspect(prog, 40)
	if err != nil {
		t.Fatal(err)
	}
	if p := l.plan(FormatJPEG, prog, 203, 141); p.peak != info.Bytes || p.fallback < 20*203*141 || info.Scale != 2 {
		t.Errorf("progressive JPEG plan %+v, want peak %d (%+v) and image/jpeg's cost as fallback", p, info.Bytes, info)
	}
	var b16 bytes.Buffer
	png.Encode(&b16, image.NewNRGBA64(image.Rect(0, 0, 120, 90)))
	hdr, _ := pngscale.DecodeConfig(b16.Bytes())
	if p := l.plan(FormatPNG, b16.Bytes(), 120, 90); !p.png || p.peak != hdr.Bytes(53, 40) || p.w != 53 || p.h != 40 {
		t.Errorf("16-bit PNG plan %+v, want pngscale to 53x40 at %d bytes", p, hdr.Bytes(53, 40))
	}
	// An 8-bit PNG kept at its own size stays with image/png.
	var small bytes.Buffer
	png.Encode(&small, testImage(50, 40))
	if p := l.plan(FormatPNG, small.Bytes(), 50, 40); p.png {
		t.Errorf("a 50x40 8-bit PNG planned for pngscale: %+v", p)
	}
	if p := newLoader(t, Config{}).plan(FormatJPEG, prog, 203, 141); p.peak != p.fallback {
		t.Errorf("without the fast decoder the plan must be image/jpeg's: %+v", p)
	}
}
