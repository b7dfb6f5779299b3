package faces

import (
	"image"
	"image/color"
	"math"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"thumbforge/internal/core"
)

// astroFaceLabel is the astronaut's face from the hand-labelled eyes.
func astroFaceLabel() core.Face {
	return core.Face{Box: image.Rect(172, 60, 278, 166), LeftEye: astroLeftEye, RightEye: astroRightEye, Confidence: 1}
}

// TestAlignedCropLevelsEyes rotates the photograph by 12 degrees and expects AlignedCrop to
// undo it: the crop matches the upright one and its eyes are level and where documented.
func TestAlignedCropLevelsEyes(t *testing.T) {
	astro := loadPhoto(t, "astronaut.jpg")
	const size = 256
	upright := AlignedCrop(astro, astroFaceLabel(), size)

	a := 12 * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	cx, cy := 256.0, 256.0
	// dst -> src is the inverse rotation about the centre; x/image wants src -> dst.
	rot := f64.Aff3{cos, -sin, cx - cos*cx + sin*cy, sin, cos, cy - sin*cx - cos*cy}
	rotated := image.NewRGBA(astro.Rect)
	xdraw.BiLinear.Transform(rotated, rot, astro, astro.Rect, xdraw.Src, nil)
	move := func(p image.Point) image.Point {
		x, y := float64(p.X)+0.5, float64(p.Y)+0.5
		return image.Pt(int(math.Floor(rot[0]*x+rot[1]*y+rot[2])), int(math.Floor(rot[3]*x+rot[4]*y+rot[5])))
	}
	f := astroFaceLabel()
	c := move(centre(f.Box))
	f.Box = image.Rectangle{c, c}.Inset(-53)
	f.LeftEye, f.RightEye = move(f.LeftEye), move(f.RightEye)
	crop := AlignedCrop(rotated, f, size)

	mad := innerMAD(crop, upright, 1)
	// The measure must tell an unrotated crop of the rotated photo from the upright one.
	naive := innerMAD(AlignedCrop(rotated, astroFaceLabel(), size), upright, 1)
	t.Logf("mean abs difference to the upright crop: aligned %.1f, unaligned %.1f", mad, naive)
	if mad > 12 || naive <= 2*mad {
		t.Errorf("crop of the rotated photo differs from the upright crop by %.1f on average (unaligned: %.1f)", mad, naive)
	}
	got := largest(t, testDetector(t).Detect(crop), "aligned crop")
	if dy := got.LeftEye.Y - got.RightEye.Y; dy < -4 || dy > 4 {
		t.Errorf("eyes not level in the crop: %v %v", got.LeftEye, got.RightEye)
	}
	mid := got.LeftEye.Add(got.RightEye).Div(2)
	if want := image.Pt(size/2, size*454/1000); dist(mid, want) > 8 {
		t.Errorf("eye midpoint %v, want near %v", mid, want)
	}
}

func TestPasteFace(t *testing.T) {
	d := testDetector(t)
	dst := loadPhoto(t, "coffee.jpg")
	orig := image.NewRGBA(dst.Rect)
	copy(orig.Pix, dst.Pix)
	face := AlignedCrop(loadPhoto(t, "astronaut.jpg"), astroFaceLabel(), 200)
	at, size := image.Pt(250, 130), 180
	PasteFace(dst, face, at, size)

	f := largest(t, d.Detect(dst), "pasted face")
	if dist(centre(f.Box), at) > 0.15*float64(size) {
		t.Errorf("pasted face detected at %v, pasted at %v", f.Box, at)
	}
	// Outside the oval nothing changes; at its centre the face is opaque.
	for y := range dst.Rect.Dy() {
		for x := range dst.Rect.Dx() {
			r := math.Hypot(float64(x)+0.5-float64(at.X), float64(y)+0.5-float64(at.Y)) / float64(size)
			if r > pasteRadius && dst.RGBAAt(x, y) != orig.RGBAAt(x, y) {
				t.Fatalf("pixel %d,%d outside the oval changed", x, y)
			}
		}
	}
	want := face.RGBAAt(100, 100)
	if got := dst.RGBAAt(at.X, at.Y); absDiff(got.R, want.R) > 6 || absDiff(got.G, want.G) > 6 {
		t.Errorf("centre pixel %v, want the face's %v (no colour matching)", got, want)
	}
	// Clipped pastes and empty sizes are harmless.
	PasteFace(dst, face, image.Pt(-50, 10), 120)
	PasteFace(dst, face, at, 0)
}

func absDiff(a, b uint8) int { return int(math.Abs(float64(a) - float64(b))) }

func TestLabRoundTrip(t *testing.T) {
	for _, c := range []color.RGBA{
		{0, 0, 0, 255}, {255, 255, 255, 255}, {255, 0, 0, 255}, {0, 255, 0, 255},
		{0, 0, 255, 255}, {224, 172, 150, 255}, {90, 60, 40, 255}, {3, 250, 128, 255},
	} {
		r, g, b := fromLab(toLab(c.R, c.G, c.B))
		if math.Abs(r-float64(c.R)) > 0.5 || math.Abs(g-float64(c.G)) > 0.5 || math.Abs(b-float64(c.B)) > 0.5 {
			t.Errorf("%v -> Lab -> %.2f %.2f %.2f", c, r, g, b)
		}
	}
	if l := toLab(255, 255, 255); math.Abs(l[0]-100) > 0.01 || math.Abs(l[1]) > 0.01 || math.Abs(l[2]) > 0.01 {
		t.Errorf("white is %v in Lab, want 100 0 0", l)
	}
}

// TestTransferMatchesStats applies the colour transfer from the astronaut's skin to the
// colour-shifted person's and expects the result's Lab statistics to land on the target's.
func TestTransferMatchesStats(t *testing.T) {
	const size = 128
	fr := cropFrame(size)
	src := AlignedCrop(loadPhoto(t, "astronaut.jpg"), astroFaceLabel(), size)
	other := otherPerson(t)
	dstStats := ellipseStats(AlignedCrop(other, largest(t, testDetector(t).Detect(other), "other"), size), fr, statsRadius)
	srcStats := ellipseStats(src, fr, statsRadius)
	tr := newTransfer(srcStats, dstStats)
	for i := 0; i < len(src.Pix); i += 4 {
		r, g, b := tr.apply(float64(src.Pix[i]), float64(src.Pix[i+1]), float64(src.Pix[i+2]))
		src.Pix[i], src.Pix[i+1], src.Pix[i+2] = clamp8(r), clamp8(g), clamp8(b)
	}
	got := ellipseStats(src, fr, statsRadius)
	for i := range 3 {
		if math.Abs(got.mean[i]-dstStats.mean[i]) > 1.5 || math.Abs(got.std[i]-dstStats.std[i]) > 1.5 {
			t.Errorf("channel %d: mean/std %.1f/%.1f, want %.1f/%.1f (source was %.1f/%.1f)", i,
				got.mean[i], got.std[i], dstStats.mean[i], dstStats.std[i], srcStats.mean[i], srcStats.std[i])
		}
	}
}
