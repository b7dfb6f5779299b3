package core_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func styleParams() core.CustomParams {
	data := "data:image/png;base64," + png1x1
	var imgs []core.ImageRef
	for _, f := range []string{"a", "b", "c"} {
		imgs = append(imgs, core.ImageRef{Field: f, Data: data})
	}
	return core.CustomParams{Mode: core.ModeStyle, Name: "Neon", Images: imgs}
}

// TestTrainingLifecycle: a creation stores the record with its hold, saves the inputs and
// queues the job; completion charges once, in the transaction that completes.
func TestTrainingLifecycle(t *testing.T) {
	e := newEnv(t, nil)
	m, err := e.svc.CreateCustom(e.ctx, e.p, styleParams())
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.st.CustomModelByID(e.ctx, m.ID)
	if err != nil || stored.Status != core.StatusProcessing || core.SourcePending(stored) || len(e.jobs.ids) != 1 {
		t.Fatalf("record %+v (%v), %d jobs: want processing, inputs saved, one job", stored, err, len(e.jobs.ids))
	}
	if f := e.files(); len(f) != 3 {
		t.Fatalf("saved inputs %v, want 3", f)
	}
	if _, err := e.svc.TrainingRecord(e.ctx, m.ID); err != nil {
		t.Fatalf("TrainingRecord: %v", err)
	}
	holds, _ := e.st.HeldReservations(e.ctx, uuid.Nil, 10)
	if len(holds) != 1 || holds[0].Custom == nil || holds[0].Custom.ID != m.ID || holds[0].Amount != 38 {
		t.Fatalf("holds %+v: want the training price held by the record", holds)
	}
	res := core.TrainingResult{Params: `{}`, PortraitKey: core.PortraitKey(m.ID)}
	if err := e.svc.CompleteTraining(e.ctx, m.ID, res); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.CompleteTraining(e.ctx, m.ID, res); err != nil {
		t.Fatalf("second completion: %v", err)
	}
	if err := e.svc.FailTraining(e.ctx, m.ID, "late"); err != nil {
		t.Fatalf("failing a completed record: %v", err)
	}
	if b := e.balance(); b != 62 {
		t.Fatalf("balance %d, want 62 (charged once)", b)
	}
}

// TestTrainingFailureDeletesWhatTheJobWrote: a failed record releases its hold and
// deletes every blob it may own, including those a job wrote before failing.
func TestTrainingFailureDeletesWhatTheJobWrote(t *testing.T) {
	e := newEnv(t, nil)
	m, err := e.svc.CreateCustom(e.ctx, e.p, styleParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{core.RefKey(m.ID, 0), core.RefKey(m.ID, 2), core.PortraitKey(m.ID)} {
		if err := e.blobs.Put(e.ctx, k, []byte("x"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.svc.FailTraining(e.ctx, m.ID, "no"); err != nil {
		t.Fatal(err)
	}
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left: %v", f)
	}
	if b := e.balance(); b != 100 {
		t.Fatalf("balance %d", b)
	}
}

// TestCreationAbandoned: a creation that cannot save its inputs leaves no record, no hold
// and no blob (a Put that wrote and still failed included).
func TestCreationAbandoned(t *testing.T) {
	e := newEnv(t, nil)
	e.blobs.putFails = true
	_, err := e.svc.CreateCustom(e.ctx, e.p, styleParams())
	wantCode(t, err, core.CodeInternal)
	if list, _ := e.st.ListCustomModels(e.ctx, e.p.Account.ID); len(list) != 0 {
		t.Fatalf("records left: %+v", list)
	}
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left: %v", f)
	}
	if b := e.balance(); b != 100 || len(e.jobs.ids) != 0 {
		t.Fatalf("balance %d, %d jobs", b, len(e.jobs.ids))
	}
}

// TestCreationCutShort: a record whose creation died while saving its inputs has no job
// to run; the reconciler fails it, gives the credits back and deletes what was saved.
func TestCreationCutShort(t *testing.T) {
	var m *core.CustomModel
	e := newEnv(t, func(c *core.ServiceConfig) {
		c.AtStep = func(step string) {
			if step == core.StepCustomBlob {
				panic(step) // the process stops here: nothing after it runs
			}
		}
	})
	func() {
		defer func() { recover() }()
		m, _ = e.svc.CreateCustom(e.ctx, e.p, styleParams())
	}()
	list, _ := e.st.ListCustomModels(e.ctx, e.p.Account.ID)
	if m != nil || len(list) != 1 || !core.SourcePending(&list[0]) || len(e.files()) != 1 {
		t.Fatalf("records %+v, blobs %v: want one pending record and one saved input", list, e.files())
	}
	if _, err := e.svc.TrainingRecord(e.ctx, list[0].ID); !errors.Is(err, core.ErrSourcePending) {
		t.Fatalf("TrainingRecord: %v, want ErrSourcePending", err)
	}
	res, err := e.svc.Reconcile(e.ctx, false) // within its deadline: left alone
	if err != nil || res.Kept != 1 {
		t.Fatalf("reconcile within the deadline: %+v %v", res, err)
	}
	if res, err = e.svc.Reconcile(e.ctx, true); err != nil || res.Expired != 1 {
		t.Fatalf("reconcile alone on the store: %+v %v", res, err)
	}
	got, _ := e.st.CustomModelByID(e.ctx, list[0].ID)
	if got.Status != core.StatusFailed || got.FailReason != core.ReasonInterrupted {
		t.Fatalf("record %+v", got)
	}
	if f := e.files(); len(f) != 0 {
		t.Fatalf("blobs left: %v", f)
	}
	if b := e.balance(); b != 100 {
		t.Fatalf("balance %d", b)
	}
}
