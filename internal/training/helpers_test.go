package training

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"thumbforge/internal/blob"
	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/faces"
	"thumbforge/internal/inputs"
	"thumbforge/internal/store/sqlite"
)

// queued records enqueued ids; the tests run the trainer themselves.
type queued struct {
	mu  sync.Mutex
	ids []uuid.UUID
}

func (q *queued) EnqueueTraining(_ context.Context, id uuid.UUID) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ids = append(q.ids, id)
	return nil
}

// env is a real service (SQLite, file blobs, builtin engine, face detector) and trainer.
type env struct {
	t       *testing.T
	svc     *core.Service
	store   *sqlite.Store
	trainer *Trainer
	p       core.Principal
}

func newEnv(t *testing.T, credits int64) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fs, err := blob.NewFileStore(blob.FileConfig{Dir: filepath.Join(dir, "blobs"), PublicURL: "http://127.0.0.1:1", Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	det, err := faces.NewDetector()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := builtin.New(builtin.Config{Faces: det})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := inputs.New(inputs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := core.NewService(core.ServiceConfig{Store: st, Blobs: fs, Engine: eng, Images: loader,
		Jobs: &queued{}, Faces: det, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(Config{Service: svc, Images: loader, Engine: eng, Faces: det, Crop: faces.AlignedCrop, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	acct := &core.Account{Name: "t", APIAccess: true, Balance: credits}
	if err := st.CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, svc: svc, store: st, trainer: tr, p: core.Principal{Account: acct}}
}

// dataURL encodes img as a PNG data URL.
func dataURL(t *testing.T, img image.Image) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// photo returns the bytes of a test photograph from the faces package.
func photo(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "faces", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func solid(c color.RGBA, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	return img
}

// create makes a v2 record from data URLs.
func (e *env) create(mode core.Mode, name string, imgs ...string) *core.CustomModel {
	e.t.Helper()
	var refs []core.ImageRef
	for _, d := range imgs {
		refs = append(refs, core.ImageRef{Field: "image_base64s", Data: d})
	}
	m, err := e.svc.CreateCustom(context.Background(), e.p, core.CustomParams{Mode: mode, Name: name, Images: refs})
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) get(id uuid.UUID) *core.CustomModel {
	e.t.Helper()
	m, err := e.store.CustomModelByID(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) balance() int64 {
	e.t.Helper()
	a, err := e.store.GetAccount(context.Background(), e.p.Account.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Balance
}

// learnStyle is styleStats over a list of images.
func learnStyle(imgs []image.Image) core.StyleParams {
	var s styleStats
	for _, img := range imgs {
		s.add(img)
	}
	return s.params()
}
