package enginetest

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// Run is the conformance suite: every adapter passes it against its fake (with a
// Control) and, opt-in, against a real server (without one).
func Run(t *testing.T, target Target) {
	e := NewEngine(t, target, 1)
	t.Run("BackendPictureDecodes", func(t *testing.T) { backendPicture(t, target) })
	t.Run("TextExactSizeNotUniform", func(t *testing.T) {
		for _, f := range core.Formats {
			out, err := e.Thumbnail(context.Background(), textJob(f))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			checkOutput(t, out, f)
		}
	})
	t.Run("ReferenceWeight", func(t *testing.T) { referenceWeight(t, e) })
	t.Run("EditKeepsOutsideMask", func(t *testing.T) { editMask(t, e) })
	t.Run("PersonaFacePresent", func(t *testing.T) {
		job := textJob(core.Format16x9)
		job.Prompt = "A host presenting a cooking show"
		job.Persona = &core.PersonaAssets{Faces: PersonaFaces(t)}
		out, err := e.Thumbnail(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, out, job.Format)
		if len(Detector(t).Detect(out)) == 0 {
			t.Error("no face in a persona thumbnail")
		}
	})
	c := target.Control
	if c == nil {
		return // what follows provokes failures: fakes only
	}
	t.Run("CancelFreesBackend", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c.Hang()
		done := make(chan error, 1)
		go func() {
			_, err := e.Thumbnail(ctx, textJob(core.Format16x9))
			done <- err
		}()
		WaitFor(t, "the backend to receive the request", func() bool { return !c.Idle() })
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled request: %v, want context.Canceled", err)
		}
		WaitFor(t, "the backend to drop the cancelled job", c.Idle)
	})
	t.Run("TimeoutFreesBackend", func(t *testing.T) {
		c.Hang()
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if _, err := e.Thumbnail(ctx, textJob(core.Format16x9)); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("past the deadline: %v, want context.DeadlineExceeded", err)
		}
		WaitFor(t, "the backend to drop the timed-out job", c.Idle)
	})
	t.Run("BusyIsRetried", func(t *testing.T) {
		c.Busy()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.Thumbnail(ctx, textJob(core.Format1x1)); err != nil {
			t.Fatalf("after one 429: %v", err)
		}
	})
	t.Run("FailureIsGenerationFailed", func(t *testing.T) {
		c.Fail()
		_, err := e.Thumbnail(context.Background(), textJob(core.Format1x1))
		if core.CodeOf(err) != core.CodeGenerationFailed {
			t.Fatalf("backend failure: %v, want GENERATION_FAILED", err)
		}
		if pe := core.AsError(err); target.Key != "" && strings.Contains(pe.Message+err.Error(), target.Key) {
			t.Error("the key appears in the error")
		}
	})
	if r, ok := c.(Refuser); ok {
		t.Run("RefusalIsRejected", func(t *testing.T) {
			r.Refuse()
			_, err := e.Thumbnail(context.Background(), textJob(core.Format1x1))
			if core.CodeOf(err) != core.CodeGenerationRejected || !errors.Is(err, core.ErrModeration) {
				t.Fatalf("refusal: %v, want GENERATION_REJECTED", err)
			}
		})
	}
}

// checkOutput checks a thumbnail's exact size and that it is a picture, not a fill.
func checkOutput(t *testing.T, img image.Image, f core.Format) {
	t.Helper()
	w, h, _ := f.Size()
	if img.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("%s output is %v, want %dx%d at the origin", f, img.Bounds(), w, h)
	}
	if v := lumaSpread(img); v < 50 {
		t.Errorf("%s output is nearly uniform (luma variance %.1f)", f, v)
	}
}

// backendPicture asks the adapter directly: its bytes decode, at its own size's
// orientation.
func backendPicture(t *testing.T, target Target) {
	model := target.Model
	if model == "" {
		model = target.Kind.DefaultModel
	}
	b, err := target.Kind.New(engines.BackendConfig{URL: target.URL, Key: target.Key, Model: model,
		Workflows: target.Workflows, Client: engines.NewClient(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ping(context.Background()); err != nil {
		t.Fatalf("ping: %v", err)
	}
	w, h := b.Size(core.Format9x16)
	req := &engines.Request{Op: engines.OpGenerate, Prompt: "a lighthouse in a storm", Width: w, Height: h,
		Format: core.Format9x16, Tier: engines.TierOf("mdl_2"), Seed: 1}
	data, err := b.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	img, err := engines.DecodePicture(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds(); got.Dx() >= got.Dy() {
		t.Errorf("a 9:16 request came back %dx%d", got.Dx(), got.Dy())
	}
}

// referenceWeight: the output differs from the reference, and a higher image weight
// keeps more of it: strictly from low to high, never less from one step to the next
// (OpenAI's input_fidelity has two levels, so medium and low may coincide).
func referenceWeight(t *testing.T, e *engines.Engine) {
	ref := scaled(Photo(t, "rocket.jpg"), 1280, 720)
	diff := map[core.Weight]float64{}
	for _, w := range []core.Weight{core.WeightHigh, core.WeightMedium, core.WeightLow} {
		job := core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: ref, Weight: w, Seed: 3}
		out, err := e.Thumbnail(context.Background(), job)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		checkOutput(t, out, job.Format)
		diff[w] = meanDiff(out, ref, ref.Bounds(), 8)
	}
	if diff[core.WeightHigh] < 1 {
		t.Errorf("weight high: the output is the reference (mean difference %.2f)", diff[core.WeightHigh])
	}
	if !(diff[core.WeightHigh] <= diff[core.WeightMedium] && diff[core.WeightMedium] <= diff[core.WeightLow] && diff[core.WeightHigh] < diff[core.WeightLow]) {
		t.Errorf("distance to the reference by weight (high, medium, low) = %.1f, %.1f, %.1f: want increasing, high < low",
			diff[core.WeightHigh], diff[core.WeightMedium], diff[core.WeightLow])
	}
}

// editMask: a masked edit changes the masked half and leaves the other half exactly as
// it was (the engine composites the input back: models treat masks as guidance).
func editMask(t *testing.T, e *engines.Engine) {
	in := scaled(Photo(t, "coffee.jpg"), 1280, 720)
	mask := image.NewGray(in.Rect)
	for y := 0; y < 720; y++ {
		for x := 0; x < 640; x++ {
			mask.Pix[mask.PixOffset(x, y)] = 255
		}
	}
	out, err := e.Edit(context.Background(), core.EditJob{Image: in, Mask: mask, Instruction: "make the left side a starry night sky", Format: core.Format16x9, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, out, core.Format16x9)
	if d := meanDiff(out, in, image.Rect(0, 0, 600, 720), 4); d < 1 {
		t.Errorf("the masked half did not change (mean difference %.2f)", d)
	}
	if d := meanDiff(out, in, image.Rect(680, 0, 1280, 720), 1); d != 0 {
		t.Errorf("pixels outside the mask changed (mean difference %.3f)", d)
	}
}

// WaitFor polls cond until it holds; what never gets there fails the test after a
// minute (generous: the machine may be loaded, and only a bug waits that long).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
