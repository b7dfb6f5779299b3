package engines_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/fakekit"
	"thumbforge/internal/faces"
)

// painter is an in-process backend with chosen capabilities that paints its answer.
type painter struct {
	caps  engines.Caps
	mu    sync.Mutex
	reqs  []*engines.Request
	reply func(*engines.Request) ([]byte, error)
}

func (p *painter) Caps() engines.Caps           { return p.caps }
func (p *painter) Size(core.Format) (int, int)  { return 768, 512 }
func (p *painter) Ping(context.Context) error   { return nil }
func (p *painter) requests() []*engines.Request { p.mu.Lock(); defer p.mu.Unlock(); return p.reqs }

func (p *painter) Generate(ctx context.Context, r *engines.Request) ([]byte, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, r)
	p.mu.Unlock()
	core.ReportProgress(ctx, 50)
	if p.reply != nil {
		return p.reply(r)
	}
	return fakekit.EncodePNG(fakekit.Scene(r.Seed, r.Prompt, r.Width, r.Height)), nil
}

func newTestEngine(t *testing.T, p *painter, key string) *engines.Engine {
	t.Helper()
	return newTestEngineText(t, p, key, engines.TextOverlay)
}

func newTestEngineText(t *testing.T, p *painter, key string, text engines.TextMode) *engines.Engine {
	t.Helper()
	d := enginetest.Detector(t)
	b, err := builtin.New(builtin.Config{Faces: d})
	if err != nil {
		t.Fatal(err)
	}
	kind := engines.Kind{Name: "paint", DefaultConcurrency: 2, New: func(engines.BackendConfig) (engines.Backend, error) { return p, nil }}
	cfg := engines.Config{Kind: "paint", URLs: []string{"http://paint"}, Key: key, Text: text}
	if err := cfg.Validate(map[string]engines.Kind{"paint": kind}); err != nil {
		t.Fatal(err)
	}
	e, err := engines.New(engines.Options{Config: cfg, Kind: kind, Builtin: b, Swapper: faces.NewSwapper(d), Faces: d, Logger: enginetest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestProgressRisesToTheEnd(t *testing.T) {
	e := newTestEngine(t, &painter{caps: engines.CapText}, "")
	var mu sync.Mutex
	var seen []int
	ctx := core.WithProgress(context.Background(), func(p int) { mu.Lock(); seen = append(seen, p); mu.Unlock() })
	if _, err := e.Thumbnail(ctx, core.ThumbnailJob{Model: "mdl_3", Format: core.Format1x1, Prompt: "progress"}); err != nil {
		t.Fatal(err)
	}
	want := []int{5, 5 + 50*85/100, 90, 95}
	if len(seen) != len(want) {
		t.Fatalf("progress %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("progress %v, want %v", seen, want)
		}
	}
}

func TestWhatTheBackendCannotDoRunsOnTheBuiltin(t *testing.T) {
	p := &painter{caps: engines.CapText}
	e := newTestEngine(t, p, "")
	ref := fakekit.Scene(1, "ref", 640, 480)
	out, err := e.Thumbnail(context.Background(), core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: ref, Weight: core.WeightHigh})
	if err != nil || out.Bounds().Dx() != 1280 {
		t.Fatalf("reference on a text-only backend: %v", err)
	}
	if _, err := e.Edit(context.Background(), core.EditJob{Image: ref, Instruction: "make it brighter"}); err != nil {
		t.Fatalf("edit on a backend without edits: %v", err)
	}
	if n := len(p.requests()); n != 0 {
		t.Fatalf("the backend got %d requests it cannot serve", n)
	}
	// A persona the backend cannot do: the scene comes from the backend, the face from
	// the builtin (a swap, or the portrait where the scene has none).
	face := enginetest.PersonaFaces(t)[0]
	out, err = e.Thumbnail(context.Background(), core.ThumbnailJob{Model: "mdl_3", Format: core.Format16x9, Prompt: "A chef in a kitchen",
		Persona: &core.PersonaAssets{Faces: []image.Image{face}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.requests()) != 1 || p.requests()[0].Faces != nil || !strings.Contains(p.requests()[0].Prompt, "face clearly visible") {
		t.Fatalf("persona request: %+v", p.requests())
	}
	if len(enginetest.Detector(t).Detect(out)) == 0 {
		t.Fatal("no face in the persona thumbnail")
	}
}

func TestBackendFailuresBecomePublicErrors(t *testing.T) {
	const key = "sk-never-shown"
	cases := []struct {
		name  string
		reply func(*engines.Request) ([]byte, error)
		code  core.Code
	}{
		{"undecodable", func(*engines.Request) ([]byte, error) { return []byte("<html>"), nil }, core.CodeGenerationFailed},
		{"tiny", func(*engines.Request) ([]byte, error) {
			return fakekit.EncodePNG(image.NewRGBA(image.Rect(0, 0, 4, 4))), nil
		}, core.CodeGenerationFailed},
		{"failed", func(*engines.Request) ([]byte, error) { return nil, engines.Failed("CUDA out of memory, key %s", key) }, core.CodeGenerationFailed},
		{"refused", func(*engines.Request) ([]byte, error) { return nil, engines.Refused(400, "moderation_blocked") }, core.CodeGenerationRejected},
		{"busy past deadline", func(*engines.Request) ([]byte, error) { return nil, engines.Busy(429, time.Hour, "queue full") }, core.CodeGenerationTimeout},
		{"plain error", func(*engines.Request) ([]byte, error) { return nil, errors.New("something odd " + key) }, core.CodeGenerationFailed},
	}
	for _, c := range cases {
		e := newTestEngine(t, &painter{caps: engines.CapText, reply: c.reply}, key)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := e.Thumbnail(ctx, core.ThumbnailJob{Model: "mdl_3", Format: core.Format1x1, Prompt: "x"})
		cancel()
		pe := core.AsError(err)
		if pe == nil || pe.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("%s: the key is in the error: %v", c.name, err)
		}
		if c.code == core.CodeGenerationRejected && !errors.Is(err, core.ErrModeration) {
			t.Errorf("%s: not marked as moderation", c.name)
		}
	}
}

func TestEditCompositesTheInputBackOutsideTheMask(t *testing.T) {
	p := &painter{caps: engines.CapText | engines.CapEdit | engines.CapMask}
	e := newTestEngine(t, p, "")
	in := fakekit.Scene(5, "input", 1000, 1000)       // v1: no format, the nearest is 1:1
	mask := image.NewGray(image.Rect(0, 0, 100, 100)) // masks may be smaller than the image
	for i := range mask.Pix[:100*50] {
		mask.Pix[i] = 255
	}
	out, err := e.Edit(context.Background(), core.EditJob{Image: in, Mask: mask, Instruction: "Add a hat, exactly as I say"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Bounds() != image.Rect(0, 0, 1080, 1080) {
		t.Fatalf("size %v", out.Bounds())
	}
	r := p.requests()[0]
	if r.Op != engines.OpEdit || r.Prompt != "Add a hat, exactly as I say" || r.Mask == nil || r.Mask.Rect != image.Rect(0, 0, 768, 512) {
		t.Fatalf("request %+v", r)
	}
	kept := builtin.Resize(in, in.Rect, 1080, 1080)
	o := out.(*image.RGBA)
	for y := 560; y < 1080; y += 7 {
		for x := 0; x < 1080; x += 7 {
			if o.RGBAAt(x, y) != kept.RGBAAt(x, y) {
				t.Fatalf("pixel (%d,%d) outside the mask changed", x, y)
			}
		}
	}
}

func TestFaceSwapChecksFacesBeforeTheBackend(t *testing.T) {
	p := &painter{caps: engines.CapText | engines.CapFaceSwap}
	e := newTestEngine(t, p, "")
	photo := enginetest.Photo(t, "astronaut.jpg")
	blank := fakekit.Scene(1, "no face here", 400, 300)
	if _, err := e.FaceSwap(context.Background(), core.FaceSwapJob{Target: blank, Face: photo}); !errors.Is(err, core.ErrNoTargetFace) {
		t.Fatalf("faceless target: %v", err)
	}
	if _, err := e.FaceSwap(context.Background(), core.FaceSwapJob{Target: photo, Face: blank}); !errors.Is(err, core.ErrNoSourceFace) {
		t.Fatalf("faceless face: %v", err)
	}
	if len(p.requests()) != 0 {
		t.Fatal("the backend was asked to swap without faces")
	}
	out, err := e.FaceSwap(context.Background(), core.FaceSwapJob{Target: photo, Face: photo, Format: core.Format9x16})
	if err != nil || out.Bounds() != image.Rect(0, 0, 720, 1280) {
		t.Fatalf("swap: %v", err)
	}
	if r := p.requests()[0]; r.Op != engines.OpFaceSwap || len(r.Faces) != 1 || r.Image.Rect != image.Rect(0, 0, 768, 512) {
		t.Fatalf("request %+v", r)
	}
}

func TestSupportAndTextModeFollowTheConfiguration(t *testing.T) {
	support := fakekit.Scene(2, "support", 300, 200)
	job := core.ThumbnailJob{Model: "mdl_4", Format: core.Format16x9, Prompt: "Budget gaming PC build", Support: support}
	with := &painter{caps: engines.CapText | engines.CapSupport}
	if _, err := newTestEngine(t, with, "").Thumbnail(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if r := with.requests()[0]; r.Support == nil || !strings.Contains(r.Prompt, "support image") {
		t.Fatalf("a backend with support images did not get it: %+v", r)
	}
	without := &painter{caps: engines.CapText}
	if _, err := newTestEngine(t, without, "").Thumbnail(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if r := without.requests()[0]; r.Support != nil || strings.Contains(r.Prompt, "support image") {
		t.Fatalf("a backend without support images got one: %+v", r)
	}
	job.Model = "mdl_3" // the API gives support images to mdl_4 and mdl_4_5 only
	if _, err := newTestEngine(t, with, "").Thumbnail(context.Background(), job); err != nil || with.requests()[1].Support != nil {
		t.Fatalf("mdl_3 sent a support image: %v", err)
	}
	model := &painter{caps: engines.CapText}
	if _, err := newTestEngineText(t, model, "", engines.TextModel).Thumbnail(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if p := model.requests()[0].Prompt; !strings.Contains(p, `Include the headline "`) || strings.Contains(p, "No text") {
		t.Fatalf("model text mode prompt: %q", p)
	}
}
