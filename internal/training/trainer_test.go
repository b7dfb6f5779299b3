package training

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"testing"
	"time"

	"thumbforge/internal/core"
)

func TestPersonaTrainsFromFaces(t *testing.T) {
	e := newEnv(t, 100)
	face := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo(t, "astronaut.jpg"))
	cat := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo(t, "chelsea.jpg"))
	m := e.create(core.ModePersona, "Eileen", face, cat, face)
	if got := e.balance(); got != 100-38 {
		t.Fatalf("balance after creation = %d, want the price held", got)
	}
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatal(err)
	}
	got := e.get(m.ID)
	if got.Status != core.StatusCompleted || got.Stage != core.StageReady || got.Progress != 100 || got.CompletedAt == nil {
		t.Fatalf("record = %+v, want completed/ready/100", got)
	}
	var pp core.PersonaParams
	if err := json.Unmarshal([]byte(got.Params), &pp); err != nil {
		t.Fatal(err)
	}
	if len(pp.FaceKeys) != 2 {
		t.Fatalf("face crops = %v, want 2 (the cat has no human face)", pp.FaceKeys)
	}
	if got.PortraitKey != pp.FaceKeys[0] || len(got.ReferenceKeys) != 3 {
		t.Fatalf("portrait %q refs %v", got.PortraitKey, got.ReferenceKeys)
	}
	data, err := e.svc.Blobs().Get(context.Background(), got.PortraitKey)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != CropSize {
		t.Fatalf("portrait: %v, %v", err, img)
	}
	// A second run (a retried or duplicated job) changes nothing and charges nothing more.
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := e.balance(); got != 100-38 {
		t.Fatalf("balance = %d after a repeated run", got)
	}
	ledger, err := e.store.Ledger(context.Background(), e.p.Account.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	charges := 0
	for _, l := range ledger {
		if l.Kind == core.LedgerCharge {
			charges++
		}
	}
	if charges != 1 {
		t.Fatalf("%d charges in the ledger, want 1", charges)
	}
}

func TestPersonaWithoutFaceFailsAndReleases(t *testing.T) {
	e := newEnv(t, 100)
	coffee := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo(t, "coffee.jpg"))
	m := e.create(core.ModePersona, "Nobody", coffee, coffee, coffee)
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatal(err)
	}
	got := e.get(m.ID)
	if got.Status != core.StatusFailed || got.FailReason == "" {
		t.Fatalf("record = %+v, want failed with a reason", got)
	}
	if b := e.balance(); b != 100 {
		t.Fatalf("balance = %d, want the hold released", b)
	}
	if _, err := e.svc.Blobs().Get(context.Background(), core.RecordKeys(got)[0]); err == nil {
		t.Fatal("a failed record kept its saved inputs")
	}
}

func TestBadImageFailsWithoutRetry(t *testing.T) {
	e := newEnv(t, 100)
	bad := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("not a png at all"))
	good := dataURL(t, solid(color.RGBA{200, 10, 10, 255}, 64, 64))
	m := e.create(core.ModeStyle, "Broken", good, bad, good)
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatalf("a permanent failure was returned for retry: %v", err)
	}
	if got := e.get(m.ID); got.Status != core.StatusFailed {
		t.Fatalf("status %s, want failed", got.Status)
	}
}

func TestStyleLearnsColours(t *testing.T) {
	e := newEnv(t, 100)
	red := dataURL(t, solid(color.RGBA{200, 20, 20, 255}, 80, 60))
	m := e.create(core.ModeStyle, "Red", red, red, red)
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatal(err)
	}
	got := e.get(m.ID)
	if got.Status != core.StatusCompleted || got.PortraitKey == "" {
		t.Fatalf("record = %+v", got)
	}
	var sp core.StyleParams
	if err := json.Unmarshal([]byte(got.Params), &sp); err != nil {
		t.Fatal(err)
	}
	if sp.LabMean[1] < 40 || sp.LabStd[0] > 1 || sp.Contrast > 0.01 || len(sp.Palette) == 0 {
		t.Fatalf("style of a flat red image: %+v", sp)
	}
	if p := sp.Palette[0]; p.R < 180 || p.G > 40 {
		t.Fatalf("dominant colour %v, want red", p)
	}
}

func TestLearnStyleMeasures(t *testing.T) {
	flat := solid(color.RGBA{128, 128, 128, 255}, 64, 64)
	checker := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			v := uint8(0)
			if (x+y)%2 == 0 {
				v = 255
			}
			checker.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	halves := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			v := uint8(0)
			if x >= 32 {
				v = 255
			}
			halves.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	f, c, h := learnStyle([]image.Image{flat}), learnStyle([]image.Image{checker}), learnStyle([]image.Image{halves})
	if f.Contrast != 0 || f.Texture != 0 {
		t.Fatalf("flat image: contrast %v texture %v", f.Contrast, f.Texture)
	}
	if !(c.Texture > h.Texture && h.Texture > 0) {
		t.Fatalf("texture: checker %v, halves %v; want checker busier", c.Texture, h.Texture)
	}
	if h.Contrast < 0.4 {
		t.Fatalf("black/white halves contrast %v", h.Contrast)
	}
	// Pooling two flat images of different lightness gives a spread between them.
	dark, light := solid(color.RGBA{20, 20, 20, 255}, 16, 16), solid(color.RGBA{230, 230, 230, 255}, 16, 16)
	if p := learnStyle([]image.Image{dark, light}); p.LabStd[0] < 30 {
		t.Fatalf("pooled L deviation %v, want the spread between the images", p.LabStd[0])
	}
}

// TestPersonaTwentyImages reports the time to train a 20-image persona (the goal is under
// 5 s); it asserts only the result, not the time.
func TestPersonaTwentyImages(t *testing.T) {
	e := newEnv(t, 100)
	var imgs []string
	face := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo(t, "astronaut.jpg"))
	for range 3 {
		imgs = append(imgs, face)
	}
	m := e.create(core.ModePersona, "Twenty", imgs...)
	// Twenty stored images, as a v1 zip leaves them.
	src := core.TrainingSource{}
	for i := range 20 {
		key := "custom/" + m.ID.String() + "/train-" + string(rune('a'+i)) + ".jpg"
		if err := e.svc.Blobs().Put(context.Background(), key, photo(t, "astronaut.jpg"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		src.ImageKeys = append(src.ImageKeys, key)
	}
	b, _ := json.Marshal(src)
	if _, err := e.store.UpdateCustomModel(context.Background(), m.ID, func(m *core.CustomModel) error {
		m.Source = string(b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.trainer.Train(context.Background(), m.ID, false); err != nil {
		t.Fatal(err)
	}
	t.Logf("20-image persona trained in %v", time.Since(start))
	var pp core.PersonaParams
	got := e.get(m.ID)
	if err := json.Unmarshal([]byte(got.Params), &pp); err != nil || len(pp.FaceKeys) != 20 {
		t.Fatalf("status %s, %d face crops (%v)", got.Status, len(pp.FaceKeys), err)
	}
}
