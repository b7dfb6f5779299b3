// Package faces finds faces in photographs and swaps them: classical, pure-Go detection
// with pigo's pixel-intensity-comparison cascades and a classical swap (similarity
// alignment on the eyes, Lab colour transfer, feathered elliptical blend).
package faces

import (
	_ "embed"
	"fmt"
	"image"
	"math"
	"slices"

	pigo "github.com/esimov/pigo/core"

	"thumbforge/internal/core"
)

// The cascades are pigo v1.4.6's (MIT, see cascade/LICENSE).
var (
	//go:embed cascade/facefinder
	facefinderCascade []byte
	//go:embed cascade/puploc
	puplocCascade []byte
)

// Detection parameters, tuned on the photographs in testdata (see detect_test.go).
const (
	// workSide is the longest side of the grayscale copy the cascade scans.
	workSide = 640
	// minFaceSide is the smallest face (source pixels) the detector looks for; the floor
	// in working pixels is what the cascade can still resolve.
	minFaceSide     = 40
	minWorkFaceSide = 20
	// minQuality is the threshold on a cluster's summed cascade score: lone weak hits
	// on texture (fur, wood, smoke) stay below it, real frontal faces are far above it.
	minQuality = 5.0
	// clusterIoU merges raw cascade hits into one face.
	clusterIoU = 0.2
)

// Detector finds frontal faces and their eyes. It holds only read-only cascades, so one
// Detector may serve concurrent requests.
type Detector struct {
	cascade *pigo.Pigo
	pupils  *pupilLocator
}

var _ core.FaceDetector = (*Detector)(nil)

// NewDetector parses the embedded cascades.
func NewDetector() (*Detector, error) {
	c, err := pigo.NewPigo().Unpack(facefinderCascade)
	if err != nil {
		return nil, fmt.Errorf("faces: facefinder cascade: %w", err)
	}
	p, err := parsePuploc(puplocCascade)
	if err != nil {
		return nil, fmt.Errorf("faces: %w", err)
	}
	return &Detector{cascade: c, pupils: p}, nil
}

// Detect returns the faces in img, largest first, in img's coordinates.
func (d *Detector) Detect(img image.Image) []core.Face {
	b := img.Bounds()
	if b.Dx() < minWorkFaceSide || b.Dy() < minWorkFaceSide {
		return nil
	}
	g, k := downscaleGray(img, workSide)
	minSize := max(minWorkFaceSide, int(minFaceSide*k))
	maxSize := min(g.cols, g.rows)
	if minSize > maxSize {
		return nil
	}
	raw := d.cascade.RunCascade(pigo.CascadeParams{
		MinSize:     minSize,
		MaxSize:     maxSize,
		ShiftFactor: 0.1,
		ScaleFactor: 1.1,
		ImageParams: pigo.ImageParams{Pixels: g.pix, Rows: g.rows, Cols: g.cols, Dim: g.cols},
	}, 0)
	clusters := d.cascade.ClusterDetections(raw, clusterIoU)
	kept := suppressNested(clusters)

	out := make([]core.Face, 0, len(kept))
	for _, det := range kept {
		out = append(out, d.face(g, det, k, b.Min))
	}
	slices.SortStableFunc(out, func(a, b core.Face) int {
		if c := b.Box.Dx()*b.Box.Dy() - a.Box.Dx()*a.Box.Dy(); c != 0 {
			return c
		}
		return cmpFloat(b.Confidence, a.Confidence)
	})
	return out
}

// suppressNested keeps strong clusters and drops any cluster mostly inside a stronger one:
// pigo's IoU clustering leaves a small box on the nose or an eye of a large face.
func suppressNested(clusters []pigo.Detection) []pigo.Detection {
	var strong []pigo.Detection
	for _, c := range clusters {
		if c.Q >= minQuality {
			strong = append(strong, c)
		}
	}
	slices.SortFunc(strong, func(a, b pigo.Detection) int { return cmpFloat(float64(b.Q), float64(a.Q)) })
	var kept []pigo.Detection
	for _, c := range strong {
		covered := false
		for _, k := range kept {
			if overlapOfSmaller(detRect(c), detRect(k)) > 0.5 {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, c)
		}
	}
	return kept
}

// face converts a working-scale detection into a core.Face in source coordinates,
// locating the pupils with the puploc cascade and falling back to the average eye
// position of a frontal face when the locator wanders off.
func (d *Detector) face(g grayImage, det pigo.Detection, k float64, origin image.Point) core.Face {
	s := float32(det.Scale)
	r, c := float32(det.Row), float32(det.Col)
	// Priors from pigo's examples: eyes sit 7.5% of the box above its centre, 17.5% to
	// either side.
	pr := r - 0.075*s
	lc, rc := c-0.175*s, c+0.175*s
	lr, lcol := d.pupils.locate(g, pr, lc, 0.25*s, false)
	rr, rcol := d.pupils.locate(g, pr, rc, 0.25*s, true)
	tol := 0.12 * s
	if dist32(lr, lcol, pr, lc) > tol || dist32(rr, rcol, pr, rc) > tol || rcol-lcol < 0.2*s {
		lr, lcol, rr, rcol = pr, lc, pr, rc
	}
	toSrc := func(row, col float32) image.Point {
		return image.Pt(origin.X+int(math.Round(float64(col)/k)), origin.Y+int(math.Round(float64(row)/k)))
	}
	half := float64(s) / 2
	box := image.Rect(
		origin.X+int(math.Round((float64(c)-half)/k)), origin.Y+int(math.Round((float64(r)-half)/k)),
		origin.X+int(math.Round((float64(c)+half)/k)), origin.Y+int(math.Round((float64(r)+half)/k)))
	return core.Face{
		Box:        box,
		LeftEye:    toSrc(lr, lcol),
		RightEye:   toSrc(rr, rcol),
		Confidence: confidence(det.Q),
	}
}

// confidence maps a cluster's summed cascade score onto 0..1: 0.5 at the detection
// threshold, approaching 1 for faces many windows agree on.
func confidence(q float32) float64 {
	return 1 - 0.5*math.Exp(-(float64(q)-minQuality)/20)
}

func detRect(d pigo.Detection) image.Rectangle {
	h := d.Scale / 2
	return image.Rect(d.Col-h, d.Row-h, d.Col+h, d.Row+h)
}

// overlapOfSmaller is the intersection area over the smaller rectangle's area.
func overlapOfSmaller(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	small := min(a.Dx()*a.Dy(), b.Dx()*b.Dy())
	if in.Empty() || small == 0 {
		return 0
	}
	return float64(in.Dx()*in.Dy()) / float64(small)
}

func dist32(r1, c1, r2, c2 float32) float32 {
	return float32(math.Hypot(float64(r1-r2), float64(c1-c2)))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
