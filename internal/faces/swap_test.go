package faces

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"slices"
	"testing"

	"thumbforge/internal/core"
)

// innerMAD is the mean absolute RGB difference of two aligned crops of the same size inside
// the face ellipse up to radius rho, where a swap replaces pixels fully.
func innerMAD(a, b *image.RGBA, rho float64) float64 {
	fr := cropFrame(a.Rect.Dx())
	sum, n := 0.0, 0
	for y := range a.Rect.Dy() {
		for x := range a.Rect.Dx() {
			if u, v := fr.toCanon(float64(x)+0.5, float64(y)+0.5); ellipseRadius(u, v) > rho {
				continue
			}
			pa, pb := a.Pix[a.PixOffset(x, y):], b.Pix[b.PixOffset(x, y):]
			for i := range 3 {
				sum += math.Abs(float64(pa[i]) - float64(pb[i]))
			}
			n += 3
		}
	}
	return sum / float64(n)
}

func TestSwapReplacesTargetFace(t *testing.T) {
	d := testDetector(t)
	src, tgt := loadPhoto(t, "astronaut.jpg"), otherPerson(t)
	sf := largest(t, d.Detect(src), "source")
	tf := largest(t, d.Detect(tgt), "target")
	out, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: tgt, Face: src})
	if err != nil {
		t.Fatal(err)
	}
	if out.Bounds() != tgt.Bounds() {
		t.Fatalf("bounds %v, want the target's %v", out.Bounds(), tgt.Bounds())
	}
	of := largest(t, d.Detect(out), "swapped output")
	if dd := dist(centre(of.Box), centre(tf.Box)); dd > 0.2*float64(tf.Box.Dx()) {
		t.Errorf("face after swap at %v, target face was at %v", of.Box, tf.Box)
	}
	const size = 128
	swapped := AlignedCrop(out, tf, size)
	toSource := innerMAD(swapped, AlignedCrop(src, sf, size), featherStart)
	toTarget := innerMAD(swapped, AlignedCrop(tgt, tf, size), featherStart)
	t.Logf("mean abs difference of the swapped face: to source %.1f, to original target %.1f", toSource, toTarget)
	if toSource >= toTarget {
		t.Errorf("swapped face no closer to the source (%.1f) than to the target (%.1f)", toSource, toTarget)
	}
}

// gradient is the Sobel magnitude of m's luma at (x, y).
func gradient(m *image.RGBA, x, y int) float64 {
	l := func(x, y int) float64 {
		p := m.Pix[m.PixOffset(clampI(x, 0, m.Rect.Dx()-1), clampI(y, 0, m.Rect.Dy()-1)):]
		return float64(luma8(p[0], p[1], p[2]))
	}
	gx := l(x+1, y-1) + 2*l(x+1, y) + l(x+1, y+1) - l(x-1, y-1) - 2*l(x-1, y) - l(x-1, y+1)
	gy := l(x-1, y+1) + 2*l(x, y+1) + l(x+1, y+1) - l(x-1, y-1) - 2*l(x, y-1) - l(x+1, y-1)
	return math.Hypot(gx, gy)
}

// seamScore is the mean gradient along the blend's border (the ellipse at radii where a
// hard edge would sit) and the image's 90th-percentile gradient.
func seamScore(m *image.RGBA, fr frame) (border, p90 float64) {
	var all []float64
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			all = append(all, gradient(m, x, y))
		}
	}
	slices.Sort(all)
	sum, n := 0.0, 0
	for _, rho := range []float64{featherStart, 0.85, 1} {
		for i := range 360 {
			a := float64(i) * math.Pi / 180
			x, y := fr.toImage(rho*ellipseRU*math.Cos(a), ellipseV+rho*ellipseRV*math.Sin(a))
			if image.Pt(int(x), int(y)).In(m.Rect) {
				sum += gradient(m, int(x), int(y))
				n++
			}
		}
	}
	return sum / float64(n), all[len(all)*9/10]
}

func TestSwapLeavesNoSeam(t *testing.T) {
	d := testDetector(t)
	src, tgt := loadPhoto(t, "astronaut.jpg"), otherPerson(t)
	tf := largest(t, d.Detect(tgt), "target")
	out, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: tgt, Face: src})
	if err != nil {
		t.Fatal(err)
	}
	border, p90 := seamScore(out.(*image.RGBA), frameOf(tf))
	t.Logf("feathered blend: border gradient %.1f, image p90 %.1f", border, p90)
	if border > p90 {
		t.Errorf("seam: mean border gradient %.1f above the image's 90th percentile %.1f", border, p90)
	}

	// The same measure must see the seam of a hard-edged paste without colour matching,
	// or it proves nothing.
	hard := image.NewRGBA(tgt.Rect)
	copy(hard.Pix, tgt.Pix)
	s := AlignedCrop(src, largest(t, d.Detect(src), "source"), 256)
	hardPaste(hard, frameOf(tf), s, cropFrame(256))
	hb, hp := seamScore(hard, frameOf(tf))
	t.Logf("hard paste: border gradient %.1f, image p90 %.1f", hb, hp)
	if hb <= border {
		t.Errorf("hard paste border gradient %.1f not above the feathered %.1f", hb, border)
	}
}

// hardPaste copies the source face into the ellipse with no feather and no colour match.
func hardPaste(dst *image.RGBA, dstFr frame, src *image.RGBA, srcFr frame) {
	r := dstFr.ellipseBounds(1).Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			u, v := dstFr.toCanon(float64(x)+0.5, float64(y)+0.5)
			if ellipseRadius(u, v) > 0.85 {
				continue
			}
			sx, sy := srcFr.toImage(u, v)
			sr, sg, sb := bilinear(src, sx, sy)
			p := dst.Pix[dst.PixOffset(x, y):]
			p[0], p[1], p[2] = clamp8(sr), clamp8(sg), clamp8(sb)
		}
	}
}

func TestSwapErrors(t *testing.T) {
	d := testDetector(t)
	astro := loadPhoto(t, "astronaut.jpg")
	black := canvas(64, 64, color.RGBA{A: 255})
	for _, tc := range []struct {
		name         string
		target, face image.Image
		mask         image.Image
		want         error
	}{
		{"coffee target", loadPhoto(t, "coffee.jpg"), astro, nil, core.ErrNoTargetFace},
		{"cat target", loadPhoto(t, "chelsea.jpg"), astro, nil, core.ErrNoTargetFace},
		{"rocket target", loadPhoto(t, "rocket.jpg"), astro, nil, core.ErrNoTargetFace},
		{"nil target", nil, astro, nil, core.ErrNoTargetFace},
		{"coffee face", astro, loadPhoto(t, "coffee.jpg"), nil, core.ErrNoSourceFace},
		{"cat face", astro, loadPhoto(t, "chelsea.jpg"), nil, core.ErrNoSourceFace},
		{"rocket face", astro, loadPhoto(t, "rocket.jpg"), nil, core.ErrNoSourceFace},
		{"nil face", astro, nil, nil, core.ErrNoSourceFace},
		{"black mask", astro, astro, black, core.ErrNoTargetFace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: tc.target, Face: tc.face, Mask: tc.mask})
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSwapHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	astro := loadPhoto(t, "astronaut.jpg")
	_, err := NewSwapper(testDetector(t)).FaceSwap(ctx, core.FaceSwapJob{Target: otherPerson(t), Face: astro})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// halfMask is a w x h mask, white on the left half, the right half, both or neither.
func halfMask(w, h int, left, right bool) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if (x < w/2 && left) || (x >= w/2 && right) {
				m.SetGray(x, y, color.Gray{Y: 255})
			}
		}
	}
	return m
}

// changed reports whether a differs from b anywhere inside r.
func changed(a, b *image.RGBA, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				return true
			}
		}
	}
	return false
}

func TestSwapMaskSelectsFaces(t *testing.T) {
	d := testDetector(t)
	target := twoFaces(t) // faces centred near x = 160 and x = 520 of 720
	faces := d.Detect(target)
	if len(faces) != 2 {
		t.Fatalf("%d target faces, want 2", len(faces))
	}
	left, right := faces[0].Box, faces[1].Box
	if left.Min.X > right.Min.X {
		left, right = right, left
	}
	source := otherPerson(t)
	for _, tc := range []struct {
		name                string
		mask                image.Image
		wantLeft, wantRight bool
	}{
		// Masks at a tenth of the target's size: they are scaled to it.
		{"left white", halfMask(72, 40, true, false), true, false},
		{"right white", halfMask(72, 40, false, true), false, true},
		{"all white", halfMask(72, 40, true, true), true, true},
		{"no mask: largest only", nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: target, Face: source, Mask: tc.mask})
			if err != nil {
				t.Fatal(err)
			}
			out := img.(*image.RGBA)
			gotL, gotR := changed(out, target, left), changed(out, target, right)
			if tc.mask == nil {
				// Equal sizes: either face may be "largest", but exactly one changes.
				if gotL == gotR {
					t.Errorf("without a mask: left changed %v, right changed %v; want exactly one", gotL, gotR)
				}
				return
			}
			if gotL != tc.wantLeft || gotR != tc.wantRight {
				t.Errorf("left changed %v, right changed %v; want %v, %v", gotL, gotR, tc.wantLeft, tc.wantRight)
			}
		})
	}
}

func TestSwapOutputSize(t *testing.T) {
	d := testDetector(t)
	astro := loadPhoto(t, "astronaut.jpg")
	big := scaled(otherPerson(t), 2730, 2048)
	for _, tc := range []struct {
		name   string
		target *image.RGBA
		format core.Format
		w, h   int
	}{
		{"16:9", otherPerson(t), core.Format16x9, 1280, 720},
		{"9:16", otherPerson(t), core.Format9x16, 720, 1280},
		{"1:1", otherPerson(t), core.Format1x1, 1080, 1080},
		{"keep size", otherPerson(t), "", 682, 512},
		{"cap longest side", big, "", 1920, 1440},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: tc.target, Face: astro, Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			if b := out.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("size %v, want %dx%d", b.Size(), tc.w, tc.h)
			}
			// The swapped face is in the output, and a cover crop centres on it.
			f := largest(t, d.Detect(out), "output")
			if tc.format == core.Format9x16 {
				if c := centre(f.Box); math.Abs(float64(c.X-tc.w/2)) > 0.1*float64(tc.w) {
					t.Errorf("face centre %v not centred in %dx%d", c, tc.w, tc.h)
				}
			}
		})
	}
	_, err := NewSwapper(d).FaceSwap(context.Background(), core.FaceSwapJob{Target: astro, Face: astro, Format: "4:3"})
	if err == nil {
		t.Error("unknown format accepted")
	}
}

func TestCoverCrop(t *testing.T) {
	b := image.Rect(0, 0, 1000, 500)
	for _, tc := range []struct {
		aspect float64
		c      image.Point
		want   image.Rectangle
	}{
		{1, image.Pt(500, 250), image.Rect(250, 0, 750, 500)},
		{1, image.Pt(10, 250), image.Rect(0, 0, 500, 500)},     // clamped left
		{1, image.Pt(990, 250), image.Rect(500, 0, 1000, 500)}, // clamped right
		{4, image.Pt(500, 0), image.Rect(0, 0, 1000, 250)},     // wider: crop rows
		{4, image.Pt(500, 400), image.Rect(0, 250, 1000, 500)}, // clamped bottom
		{2, image.Pt(100, 100), image.Rect(0, 0, 1000, 500)},   // same aspect: all
	} {
		if got := coverCrop(b, tc.aspect, tc.c); got != tc.want {
			t.Errorf("coverCrop(%v, %v) = %v, want %v", tc.aspect, tc.c, got, tc.want)
		}
	}
}
