package storetest

import (
	"errors"
	"reflect"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

func (e *env) custom(account uuid.UUID, mode core.Mode, name string) *core.CustomModel {
	e.t.Helper()
	m := &core.CustomModel{AccountID: account, Mode: mode, Name: name, Source: `{"zip":"https://x/y.zip"}`}
	must(e.t, e.s.CreateCustomModel(e.ctx, m))
	return m
}

func testCustomModels(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	m := e.custom(a.ID, core.ModePersona, "Ann")
	if m.ID.Version() != 7 || m.Status != core.StatusProcessing || m.Stage != core.StageQueued {
		t.Fatalf("new record %+v: want a v7 id, processing, queued", m)
	}
	wantTime(t, "CreatedAt", m.CreatedAt, e.clock.Now())
	got, err := e.s.GetCustomModel(e.ctx, a.ID, m.ID)
	must(t, err)
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("GetCustomModel = %+v, want %+v", got, m)
	}
	_, err = e.s.GetCustomModel(e.ctx, b.ID, m.ID) // another account's record
	wantErr(t, err, core.ErrNotFound)
	_, err = e.s.GetCustomModel(e.ctx, a.ID, uuid.New())
	wantErr(t, err, core.ErrNotFound)
	byID, err := e.s.CustomModelByID(e.ctx, m.ID)
	must(t, err)
	if !reflect.DeepEqual(byID, m) {
		t.Fatalf("CustomModelByID = %+v, want %+v", byID, m)
	}
	_, err = e.s.CustomModelByID(e.ctx, uuid.New())
	wantErr(t, err, core.ErrNotFound)

	// Names are unique per account and mode, nothing wider.
	e.clock.Advance(time.Second)
	wantErr(t, e.s.CreateCustomModel(e.ctx, &core.CustomModel{AccountID: a.ID, Mode: core.ModePersona, Name: "Ann"}), core.ErrConflict)
	// A look-alike (core.NameKey) is the same name, whichever request the check raced.
	for _, alike := range []string{"ANN", "Ａnn", "Аnn" /* Cyrillic А */, " ann "} {
		wantErr(t, e.s.CreateCustomModel(e.ctx, &core.CustomModel{AccountID: a.ID, Mode: core.ModePersona, Name: alike}), core.ErrConflict)
	}
	style := e.custom(a.ID, core.ModeStyle, "Ann")
	other := e.custom(b.ID, core.ModePersona, "Ann")
	wantCode(t, e.s.CreateCustomModel(e.ctx, &core.CustomModel{AccountID: a.ID, Mode: "bogus", Name: "x"}), core.CodeValidation)
	wantErr(t, e.s.CreateCustomModel(e.ctx, &core.CustomModel{AccountID: uuid.New(), Mode: core.ModeStyle, Name: "x"}), core.ErrNotFound)

	list, err := e.s.ListCustomModels(e.ctx, a.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != m.ID || list[1].ID != style.ID {
		t.Fatalf("ListCustomModels(a) = %+v, want [persona style]", list)
	}
	list, err = e.s.ListCustomModels(e.ctx, b.ID)
	must(t, err)
	if len(list) != 1 || list[0].ID != other.ID {
		t.Fatalf("ListCustomModels(b) = %+v", list)
	}
}

func testUpdateCustomModel(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	m := e.custom(a.ID, core.ModeStyle, "Neon")
	taken := e.custom(a.ID, core.ModeStyle, "Taken")
	res, err := e.s.Reserve(e.ctx, a.ID, 0, core.OpTraining, core.Owner{})
	must(t, err)
	e.clock.Advance(time.Hour)
	done := e.clock.Now()
	got, err := e.s.UpdateCustomModel(e.ctx, m.ID, func(x *core.CustomModel) error {
		x.Status, x.Stage, x.Progress = core.StatusCompleted, core.StageReady, 100
		x.SpecialInstructions = "warm tones"
		x.PortraitKey = "custom/p.jpg"
		x.ReferenceKeys = []string{"custom/r1.jpg", "custom/r2.jpg"}
		x.Params = `{"mean":[1,2,3]}`
		x.ReservationID = &res.ID
		x.CompletedAt = &done
		x.AccountID, x.Mode, x.ID = b.ID, core.ModePersona, uuid.New() // ignored: fixed fields
		return nil
	})
	must(t, err)
	want := *m
	want.Status, want.Stage, want.Progress = core.StatusCompleted, core.StageReady, 100
	want.SpecialInstructions, want.PortraitKey, want.Params = "warm tones", "custom/p.jpg", `{"mean":[1,2,3]}`
	want.ReferenceKeys = []string{"custom/r1.jpg", "custom/r2.jpg"}
	want.ReservationID, want.CompletedAt = &res.ID, &done
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("UpdateCustomModel returned %+v, want %+v", got, &want)
	}
	stored, err := e.s.GetCustomModel(e.ctx, a.ID, m.ID)
	must(t, err)
	if !reflect.DeepEqual(stored, &want) {
		t.Fatalf("stored %+v, want %+v", stored, &want)
	}

	// Clearing optional fields round-trips too.
	got, err = e.s.UpdateCustomModel(e.ctx, m.ID, func(x *core.CustomModel) error {
		x.ReservationID, x.CompletedAt, x.ReferenceKeys, x.Status, x.FailReason = nil, nil, nil, core.StatusFailed, "no face"
		return nil
	})
	must(t, err)
	stored, err = e.s.CustomModelByID(e.ctx, m.ID)
	must(t, err)
	if stored.ReservationID != nil || stored.CompletedAt != nil || len(stored.ReferenceKeys) != 0 ||
		stored.Status != core.StatusFailed || stored.FailReason != "no face" {
		t.Fatalf("after clearing: %+v (returned %+v)", stored, got)
	}

	_, err = e.s.UpdateCustomModel(e.ctx, m.ID, func(x *core.CustomModel) error { x.Name = taken.Name; return nil })
	wantErr(t, err, core.ErrConflict)
	boom := errors.New("boom")
	_, err = e.s.UpdateCustomModel(e.ctx, m.ID, func(x *core.CustomModel) error { x.Name = "lost"; return boom })
	wantErr(t, err, boom)
	if stored, _ := e.s.CustomModelByID(e.ctx, m.ID); stored.Name != "Neon" {
		t.Fatalf("name %q after failed updates, want Neon", stored.Name)
	}
	_, err = e.s.UpdateCustomModel(e.ctx, uuid.New(), func(*core.CustomModel) error { return nil })
	wantErr(t, err, core.ErrNotFound)
}

func testDeleteCustomModel(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	m := e.custom(a.ID, core.ModePersona, "Ann")

	_, err := e.s.DeleteCustomModel(e.ctx, a.ID, m.ID)
	wantErr(t, err, core.ErrProcessing)
	_, err = e.s.CustomModelByID(e.ctx, m.ID)
	must(t, err) // still there

	_, err = e.s.UpdateCustomModel(e.ctx, m.ID, func(x *core.CustomModel) error {
		x.Status, x.PortraitKey, x.ReferenceKeys = core.StatusCompleted, "p.jpg", []string{"r.jpg"}
		return nil
	})
	must(t, err)
	_, err = e.s.DeleteCustomModel(e.ctx, b.ID, m.ID) // another account's record
	wantErr(t, err, core.ErrNotFound)

	del, err := e.s.DeleteCustomModel(e.ctx, a.ID, m.ID)
	must(t, err)
	if del.ID != m.ID || del.PortraitKey != "p.jpg" || !reflect.DeepEqual(del.ReferenceKeys, []string{"r.jpg"}) {
		t.Fatalf("deleted record %+v: want it returned with its blob keys", del)
	}
	_, err = e.s.GetCustomModel(e.ctx, a.ID, m.ID)
	wantErr(t, err, core.ErrNotFound)
	_, err = e.s.DeleteCustomModel(e.ctx, a.ID, m.ID)
	wantErr(t, err, core.ErrNotFound)

	// The name is free again once deleted; failed records delete too.
	again := e.custom(a.ID, core.ModePersona, "Ann")
	_, err = e.s.UpdateCustomModel(e.ctx, again.ID, func(x *core.CustomModel) error { x.Status = core.StatusFailed; return nil })
	must(t, err)
	_, err = e.s.DeleteCustomModel(e.ctx, a.ID, again.ID)
	must(t, err)
}
