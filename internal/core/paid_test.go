package core_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/blob"
	"thumbforge/internal/core"
	"thumbforge/internal/store/sqlite"
)

// The state machines of paid work and training, on a real SQLite store and file blobs,
// with the engine, titler and image loader replaced by functions the tests choose.

type fakeEngine struct{}

func (fakeEngine) Thumbnail(context.Context, core.ThumbnailJob) (image.Image, error) {
	return image.NewRGBA(image.Rect(0, 0, 64, 36)), nil
}
func (fakeEngine) Edit(context.Context, core.EditJob) (image.Image, error) {
	return nil, errors.New("no")
}
func (fakeEngine) Score(context.Context, image.Image) (core.Score, error) {
	return core.Score{}, errors.New("no")
}

type titlerFunc func(ctx context.Context, req core.TitleRequest) (core.TitleResult, error)

func (f titlerFunc) Titles(ctx context.Context, req core.TitleRequest) (core.TitleResult, error) {
	return f(ctx, req)
}

type loaderFunc func(ctx context.Context, ref core.ImageRef) (image.Image, error)

func (f loaderFunc) Load(ctx context.Context, ref core.ImageRef) (image.Image, error) {
	return f(ctx, ref)
}

// faultyBlobs is a file store whose Put can write and still fail, and whose Delete can fail.
type faultyBlobs struct {
	*blob.FileStore
	putFails, deleteFails bool
	failKey               string // Delete fails for this key only
}

func (b *faultyBlobs) Put(ctx context.Context, key string, data []byte, ctype string) error {
	if err := b.FileStore.Put(ctx, key, data, ctype); err != nil {
		return err
	}
	if b.putFails {
		return errors.New("timeout reading the answer") // written, yet reported failed
	}
	return nil
}

func (b *faultyBlobs) Delete(ctx context.Context, key string) error {
	if b.deleteFails || key == b.failKey {
		return errors.New("delete refused")
	}
	return b.FileStore.Delete(ctx, key)
}

type queue struct{ ids []uuid.UUID }

func (q *queue) EnqueueTraining(_ context.Context, id uuid.UUID) error {
	q.ids = append(q.ids, id)
	return nil
}

type env struct {
	t     *testing.T
	ctx   context.Context
	st    *sqlite.Store
	blobs *faultyBlobs
	dir   string
	svc   *core.Service
	p     core.Principal
	jobs  *queue
}

func newEnv(t *testing.T, edit func(*core.ServiceConfig)) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fs, err := blob.NewFileStore(blob.FileConfig{Dir: filepath.Join(dir, "blobs"), PublicURL: "http://127.0.0.1:1", Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: context.Background(), st: st, blobs: &faultyBlobs{FileStore: fs}, dir: filepath.Join(dir, "blobs"), jobs: &queue{}}
	cfg := core.ServiceConfig{Store: st, Blobs: e.blobs, Engine: fakeEngine{}, Jobs: e.jobs,
		Images: loaderFunc(func(context.Context, core.ImageRef) (image.Image, error) {
			return image.NewRGBA(image.Rect(0, 0, 8, 8)), nil
		}),
		Titler: titlerFunc(func(context.Context, core.TitleRequest) (core.TitleResult, error) {
			return core.TitleResult{Titles: []string{"A title"}}, nil
		}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if edit != nil {
		edit(&cfg)
	}
	if e.svc, err = core.NewService(cfg); err != nil {
		t.Fatal(err)
	}
	acct := &core.Account{Name: "a", APIAccess: true, Concurrency: 5}
	if err := st.CreateAccount(e.ctx, acct); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Grant(e.ctx, acct.ID, 100, "test"); err != nil {
		t.Fatal(err)
	}
	e.p = core.Principal{Account: acct}
	return e
}

// balance checks the balance equals the ledger's sum and no hold is left, and returns it.
func (e *env) balance() int64 {
	e.t.Helper()
	a, err := e.st.GetAccount(e.ctx, e.p.Account.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	rows, _ := e.st.Ledger(e.ctx, a.ID, 1000)
	var sum int64
	for _, r := range rows {
		sum += r.Delta
	}
	if holds, _ := e.st.HeldReservations(e.ctx, uuid.Nil, 100); sum != a.Balance || len(holds) != 0 {
		e.t.Fatalf("balance %d, ledger %d, %d holds left", a.Balance, sum, len(holds))
	}
	return a.Balance
}

// files lists the blobs on disk.
func (e *env) files() []string {
	var out []string
	filepath.Walk(e.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	if e := core.AsError(err); e == nil || e.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

// titles runs a title request under request id id.
func (e *env) titles(id uuid.UUID) error {
	_, err := e.svc.Titles(core.WithRequestID(e.ctx, id.String()), e.p, core.TitleParams{Prompt: "bikes", Count: 3})
	return err
}

func (e *env) request(id uuid.UUID) *core.Request {
	e.t.Helper()
	r, err := e.st.GetRequest(e.ctx, e.p.Account.ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestPaidSuccessChargesWithTheRequest(t *testing.T) {
	e := newEnv(t, nil)
	id := uuid.Must(uuid.NewV7())
	if err := e.titles(id); err != nil {
		t.Fatal(err)
	}
	if r := e.request(id); r.Status != core.RequestSucceeded || r.Operation != core.OpTitle || r.FinishedAt == nil {
		t.Fatalf("request %+v", r)
	}
	if b := e.balance(); b != 92 {
		t.Fatalf("balance %d, want 92", b)
	}
}

func TestPaidFailureReleases(t *testing.T) {
	e := newEnv(t, func(c *core.ServiceConfig) {
		c.Titler = titlerFunc(func(context.Context, core.TitleRequest) (core.TitleResult, error) {
			return core.TitleResult{}, errors.New("model down")
		})
	})
	id := uuid.Must(uuid.NewV7())
	wantCode(t, e.titles(id), core.CodeGenerationFailed)
	e.wantReleased(id)
}

// wantReleased checks the request failed and the account has every credit back.
func (e *env) wantReleased(id uuid.UUID) {
	e.t.Helper()
	if r := e.request(id); r.Status != core.RequestFailed {
		e.t.Fatalf("request %+v, want failed", r)
	}
	if b := e.balance(); b != 100 {
		e.t.Fatalf("balance %d, want 100: the hold was not released", b)
	}
}

// TestPaidRequestDeadline: the work runs under the request's deadline (inputs + stage);
// an input that outlives it ends the request with the stage's timeout, nothing charged.
func TestPaidRequestDeadline(t *testing.T) {
	e := newEnv(t, func(c *core.ServiceConfig) {
		c.Timeouts = core.Timeouts{Generation: time.Hour, Scoring: time.Hour, Title: time.Millisecond, Inputs: time.Millisecond}
		c.Images = loaderFunc(func(ctx context.Context, _ core.ImageRef) (image.Image, error) {
			<-ctx.Done() // a fetch that never answers
			return nil, ctx.Err()
		})
	})
	_, err := e.svc.Titles(e.ctx, e.p, core.TitleParams{Prompt: "bikes", Image: core.ImageRef{Field: "image_url", URL: "https://x/y.jpg"}, Count: 3})
	wantCode(t, err, core.CodeTitleTimeout)
	if b := e.balance(); b != 100 {
		t.Fatalf("balance %d, want 100", b)
	}
}

// TestPaidTakenForDeadMeanwhile: while the work runs, the reconciler takes the request for
// one whose process died (as another replica would past its deadline): the work's success
// then charges nothing and answers the stage's timeout.
func TestPaidTakenForDeadMeanwhile(t *testing.T) {
	var svc *core.Service
	e := newEnv(t, func(c *core.ServiceConfig) {
		c.Titler = titlerFunc(func(ctx context.Context, _ core.TitleRequest) (core.TitleResult, error) {
			if res, err := svc.Reconcile(ctx, true); err != nil || res.Expired != 1 {
				return core.TitleResult{}, errors.New("the reconciler did not expire the request")
			}
			return core.TitleResult{Titles: []string{"late"}}, nil
		})
	})
	svc = e.svc
	id := uuid.Must(uuid.NewV7())
	wantCode(t, e.titles(id), core.CodeTitleTimeout)
	e.wantReleased(id)
}

func thumbnail(e *env) error {
	_, err := e.svc.Thumbnail(e.ctx, e.p, core.ThumbnailParams{Model: "mdl_3", Format: core.Format16x9, Prompt: "a thumbnail"})
	return err
}

// TestOutputPutFailedAfterWriting: a Put that wrote the object but reported an error
// leaves neither the object nor its row, and the request releases its hold.
func TestOutputPutFailedAfterWriting(t *testing.T) {
	e := newEnv(t, nil)
	e.blobs.putFails = true
	wantCode(t, thumbnail(e), core.CodeGenerationFailed)
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left behind: %v", f)
	}
	if keys, _ := e.st.ExpiredOutputs(e.ctx, time.Now().Add(48*time.Hour), 10); len(keys) != 0 {
		t.Fatalf("output rows left: %v", keys)
	}
	if b := e.balance(); b != 100 {
		t.Fatalf("balance %d", b)
	}
}

// TestOutputPutAndDeleteFailed: when the object cannot be deleted either, its row stays,
// expired, so the next sweep deletes both.
func TestOutputPutAndDeleteFailed(t *testing.T) {
	e := newEnv(t, nil)
	e.blobs.putFails, e.blobs.deleteFails = true, true
	wantCode(t, thumbnail(e), core.CodeGenerationFailed)
	if f := e.files(); len(f) != 1 {
		t.Fatalf("want the written blob kept for the sweep, got %v", f)
	}
	e.blobs.putFails, e.blobs.deleteFails = false, false
	res, err := e.svc.SweepOutputs(e.ctx)
	if err != nil || res.Deleted != 1 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left after the sweep: %v", f)
	}
}

// TestSweepSkipsFailures: an output that cannot be deleted does not stop the sweep; it is
// reported, kept, and deleted by a later sweep.
func TestSweepSkipsFailures(t *testing.T) {
	e := newEnv(t, nil)
	now := time.Now()
	for _, k := range []string{"outputs/a.jpg", "outputs/b.jpg", "outputs/c.jpg"} {
		if err := e.blobs.Put(e.ctx, k, []byte("x"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		if err := e.st.RecordOutput(e.ctx, core.Output{Key: k, AccountID: e.p.Account.ID, ExpiresAt: now.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	e.blobs.failKey = "outputs/a.jpg" // the first to expire
	res, err := e.svc.SweepOutputs(e.ctx)
	if err == nil || res.Deleted != 2 || len(res.Failed) != 1 || res.Failed[0] != "outputs/a.jpg" {
		t.Fatalf("sweep with one delete failing: %+v %v", res, err)
	}
	e.blobs.failKey = ""
	if res, err = e.svc.SweepOutputs(e.ctx); err != nil || res.Deleted != 1 || len(res.Failed) != 0 {
		t.Fatalf("second sweep: %+v %v", res, err)
	}
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left: %v", f)
	}
}
