package faces

import (
	"image"
	"image/color"
	"reflect"
	"sync"
	"testing"
)

// Hand-labelled pupils of the astronaut in testdata/astronaut.jpg (512 x 512).
var (
	astroLeftEye  = image.Pt(203, 102)
	astroRightEye = image.Pt(247, 103)
	astroFace     = image.Pt(225, 112) // between the eyes and the mouth
)

func TestDetectPhotographs(t *testing.T) {
	d := testDetector(t)
	for _, tc := range []struct {
		file  string
		faces int
	}{
		{"astronaut.jpg", 1},
		{"coffee.jpg", 0},
		{"chelsea.jpg", 0},
		{"rocket.jpg", 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := d.Detect(loadPhoto(t, tc.file))
			if len(got) != tc.faces {
				t.Fatalf("%d faces, want %d: %+v", len(got), tc.faces, got)
			}
		})
	}
}

func TestDetectAstronautBoxAndEyes(t *testing.T) {
	f := largest(t, testDetector(t).Detect(loadPhoto(t, "astronaut.jpg")), "astronaut")
	if !astroFace.In(f.Box) || !astroLeftEye.In(f.Box) || !astroRightEye.In(f.Box) {
		t.Errorf("box %v misses the face at %v / eyes %v %v", f.Box, astroFace, astroLeftEye, astroRightEye)
	}
	// The face (brows to chin) is about 110 px tall.
	if s := f.Box.Dx(); s < 80 || s > 160 {
		t.Errorf("box side %d, want 80..160", s)
	}
	if dist(f.LeftEye, astroLeftEye) > 8 || dist(f.RightEye, astroRightEye) > 8 {
		t.Errorf("eyes %v %v, want near %v %v", f.LeftEye, f.RightEye, astroLeftEye, astroRightEye)
	}
	if f.Confidence <= 0.5 || f.Confidence > 1 {
		t.Errorf("confidence %v, want in (0.5, 1]", f.Confidence)
	}
}

func TestDetectTwoFacesLargestFirst(t *testing.T) {
	m := twoFaces(t)
	// Make the right face larger, so order is by size and not by position.
	place(m, scaled(loadPhoto(t, "astronaut.jpg"), 360, 360), image.Pt(360, 20))
	got := testDetector(t).Detect(m)
	if len(got) != 2 {
		t.Fatalf("%d faces, want 2: %+v", len(got), got)
	}
	if c := centre(got[0].Box); c.X < 360 {
		t.Errorf("largest face at %v, want the right one", c)
	}
	if c := centre(got[1].Box); c.X > 340 {
		t.Errorf("second face at %v, want the left one", c)
	}
	if got[0].Box.Dx() < got[1].Box.Dx() {
		t.Errorf("not largest first: %v then %v", got[0].Box, got[1].Box)
	}
}

// TestDetectThumbnailScale finds small faces in a 1280 x 720 frame, which the detector
// scans at half size.
func TestDetectThumbnailScale(t *testing.T) {
	astro := loadPhoto(t, "astronaut.jpg")
	for _, side := range []int{240, 320, 640} {
		// The astronaut's face is about 110/512 of the photo's side.
		at := image.Pt(700, 100)
		m := canvas(1280, 720, color.RGBA{40, 60, 80, 255})
		place(m, scaled(astro, side, side), at)
		want := at.Add(image.Pt(astroFace.X*side/512, astroFace.Y*side/512))
		faces := testDetector(t).Detect(m)
		if len(faces) != 1 {
			t.Fatalf("side %d: %d faces, want 1: %+v", side, len(faces), faces)
		}
		if !want.In(faces[0].Box) {
			t.Errorf("side %d: box %v misses the face at %v", side, faces[0].Box, want)
		}
		if l, r := faces[0].LeftEye, faces[0].RightEye; l.X >= r.X {
			t.Errorf("side %d: left eye %v not left of right eye %v", side, l, r)
		}
	}
}

// TestDetectSubImage checks that coordinates are in the image's own space when its
// bounds do not start at the origin.
func TestDetectSubImage(t *testing.T) {
	m := canvas(800, 700, color.RGBA{128, 128, 128, 255})
	place(m, loadPhoto(t, "astronaut.jpg"), image.Pt(200, 150))
	sub := m.SubImage(image.Rect(100, 100, 800, 700))
	f := largest(t, testDetector(t).Detect(sub), "sub-image")
	want := astroFace.Add(image.Pt(200, 150))
	if !want.In(f.Box) || dist(f.LeftEye, astroLeftEye.Add(image.Pt(200, 150))) > 8 {
		t.Errorf("face %+v, want box around %v", f, want)
	}
}

func TestDetectTinyImage(t *testing.T) {
	if got := testDetector(t).Detect(canvas(10, 300, color.RGBA{})); len(got) != 0 {
		t.Errorf("faces in a 10 px wide image: %+v", got)
	}
}

// TestDetectConcurrentDeterministic shares one Detector between goroutines (run with
// -race) and expects the same answer every time: the pupil locator has no global state.
func TestDetectConcurrentDeterministic(t *testing.T) {
	d := testDetector(t)
	m := twoFaces(t)
	want := d.Detect(m)
	var wg sync.WaitGroup
	results := make([][]any, 4)
	for i := range results {
		wg.Go(func() {
			for range 2 {
				results[i] = append(results[i], d.Detect(m))
			}
		})
	}
	wg.Wait()
	for _, rs := range results {
		for _, r := range rs {
			if !reflect.DeepEqual(r, any(want)) {
				t.Fatalf("concurrent result %+v differs from %+v", r, want)
			}
		}
	}
}

func TestParsePuplocRejectsBadInput(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":     nil,
		"short":     make([]byte, 8),
		"zero tree": make([]byte, 16),
		"truncated": puplocCascade[:len(puplocCascade)-4],
	} {
		if _, err := parsePuploc(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
