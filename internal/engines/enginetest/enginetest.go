// Package enginetest holds the conformance suite every generative engine adapter passes,
// against its protocol fake and, when THUMBFORGE_TEST_<KIND>_URL is set, against a real
// server; the protocol fakes live in its subpackages (openaifake, comfyfake, sdapifake).
package enginetest

import (
	"image"
	"image/color"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	_ "image/jpeg" // the test photographs

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/faces"
)

// Control lets the suite provoke failures on a fake backend. Against a real server there
// is none, and the checks that need one are skipped.
type Control interface {
	Hang()      // the next generation does not answer until its client goes away
	Busy()      // the next generation answers "queue full" (429), asking for a 1 s wait
	Fail()      // the next generation fails on the backend (500, execution error)
	Idle() bool // nothing of ours is running on the backend (cancelled jobs included)
}

// Refuser is a Control whose backend has a safety system that can refuse a request.
type Refuser interface {
	Refuse() // the next generation is refused on moderation grounds
}

// Target is an adapter under test.
type Target struct {
	Kind  engines.Kind
	URL   string // one backend
	Key   string
	Model string // "" for the kind's default
	// Workflows is --engine-workflows (comfyui), if any.
	Workflows string
	// Control is the fake's, nil against a real server.
	Control Control
}

// RealURL returns THUMBFORGE_TEST_<KIND>_URL (kind upper-cased), or skips the test
// saying so.
func RealURL(t *testing.T, kind string) string {
	t.Helper()
	env := "THUMBFORGE_TEST_" + strings.ToUpper(kind) + "_URL"
	u := os.Getenv(env)
	if u == "" {
		t.Skipf("no real %s server: set %s to run the conformance suite against one", kind, env)
	}
	return u
}

var (
	detOnce sync.Once
	det     *faces.Detector
	detErr  error
)

// Detector is one face detector shared by the suite's tests.
func Detector(t testing.TB) *faces.Detector {
	t.Helper()
	detOnce.Do(func() { det, detErr = faces.NewDetector() })
	if detErr != nil {
		t.Fatal(detErr)
	}
	return det
}

// NewEngine builds a generative engine for target, with the builtin behind it.
func NewEngine(t testing.TB, target Target, concurrency int) *engines.Engine {
	t.Helper()
	d := Detector(t)
	b, err := builtin.New(builtin.Config{Faces: d})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engines.Config{Kind: target.Kind.Name, URLs: []string{target.URL}, Key: target.Key,
		Model: target.Model, Concurrency: concurrency, Workflows: target.Workflows}
	if err := cfg.Validate(map[string]engines.Kind{target.Kind.Name: target.Kind}); err != nil {
		t.Fatal(err)
	}
	e, err := engines.New(engines.Options{Config: cfg, Kind: target.Kind, Builtin: b,
		Swapper: faces.NewSwapper(d), Faces: d, Logger: Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Logger writes the engine's log lines into the test's log.
func Logger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, nil))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Photo loads a test photograph of internal/faces/testdata (astronaut.jpg has one face;
// coffee.jpg, chelsea.jpg and rocket.jpg none).
func Photo(t testing.TB, name string) image.Image {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "faces", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// PersonaFaces are two aligned face crops of the astronaut, as training stores them.
func PersonaFaces(t testing.TB) []image.Image {
	t.Helper()
	photo := Photo(t, "astronaut.jpg")
	fs := Detector(t).Detect(photo)
	if len(fs) == 0 {
		t.Fatal("no face in astronaut.jpg")
	}
	crop := faces.AlignedCrop(photo, fs[0], 256)
	return []image.Image{crop, faces.AlignedCrop(photo, fs[0], 200)}
}

// lumaSpread is the standard deviation of the luma of img, on a 64-pixel grid.
func lumaSpread(img image.Image) float64 {
	b := img.Bounds()
	var sum, sq, n float64
	for y := b.Min.Y; y < b.Max.Y; y += max(1, b.Dy()/64) {
		for x := b.Min.X; x < b.Max.X; x += max(1, b.Dx()/64) {
			l := luma(img.At(x, y))
			sum += l
			sq += l * l
			n++
		}
	}
	mean := sum / n
	return sq/n - mean*mean
}

func luma(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

// meanDiff is the mean absolute luma difference of a and b over r, sampled every step
// pixels (a and b must cover r).
func meanDiff(a, b image.Image, r image.Rectangle, step int) float64 {
	var sum, n float64
	for y := r.Min.Y; y < r.Max.Y; y += step {
		for x := r.Min.X; x < r.Max.X; x += step {
			d := luma(a.At(x, y)) - luma(b.At(x, y))
			if d < 0 {
				d = -d
			}
			sum += d
			n++
		}
	}
	return sum / max(n, 1)
}

// scaled is img scaled (stretched) to w x h.
func scaled(img image.Image, w, h int) *image.RGBA {
	return builtin.Resize(img, img.Bounds(), w, h)
}

// textJob is a plain text thumbnail job.
func textJob(format core.Format) core.ThumbnailJob {
	return core.ThumbnailJob{Model: "mdl_3", Format: format, Prompt: "A rocket launch at dawn over the sea", Weight: core.WeightMedium, Seed: 7}
}
