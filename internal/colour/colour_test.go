package colour

import (
	"math"
	"testing"
)

func TestLabRoundTrip(t *testing.T) {
	for r := 0; r < 256; r += 15 {
		for g := 0; g < 256; g += 15 {
			for b := 0; b < 256; b += 15 {
				l, a, bb := RGBToLab(uint8(r), uint8(g), uint8(b))
				r2, g2, b2 := LabToRGB(l, a, bb)
				if absDiff(r, r2) > 1 || absDiff(g, g2) > 1 || absDiff(b, b2) > 1 {
					t.Fatalf("(%d,%d,%d) -> Lab -> (%d,%d,%d)", r, g, b, r2, g2, b2)
				}
			}
		}
	}
}

func TestKnownValues(t *testing.T) {
	cases := []struct {
		r, g, b  uint8
		l, a, bb float64
	}{
		{255, 255, 255, 100, 0, 0},
		{0, 0, 0, 0, 0, 0},
		{255, 0, 0, 53.24, 80.09, 67.20},
		{0, 0, 255, 32.30, 79.19, -107.86},
	}
	for _, c := range cases {
		l, a, bb := RGBToLab(c.r, c.g, c.b)
		if math.Abs(l-c.l) > 0.05 || math.Abs(a-c.a) > 0.05 || math.Abs(bb-c.bb) > 0.05 {
			t.Errorf("(%d,%d,%d) = (%.2f,%.2f,%.2f), want (%.2f,%.2f,%.2f)", c.r, c.g, c.b, l, a, bb, c.l, c.a, c.bb)
		}
	}
}

func absDiff(a int, b uint8) int {
	d := a - int(b)
	if d < 0 {
		return -d
	}
	return d
}
