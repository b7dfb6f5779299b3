package core

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestSettlement walks the reconciler's rules: what it does with a hold given its owner's
// state, the time, and whether this process is alone on the store.
func TestSettlement(t *testing.T) {
	s := &Service{cfg: ServiceConfig{SettleGrace: time.Minute, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Timeouts: Timeouts{Generation: time.Minute, Scoring: 10 * time.Second, Title: 30 * time.Second, Inputs: time.Minute}}}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	done := now.Add(-time.Hour)
	req := func(status RequestStatus, deadline time.Duration, finished bool) Hold {
		r := &Request{ID: uuid.New(), Status: status, Deadline: now.Add(deadline)}
		if finished {
			r.FinishedAt = &done
		}
		return Hold{Reservation: Reservation{Owner: Owner{Kind: OwnerRequest, ID: r.ID}}, Request: r}
	}
	async := func(status RequestStatus, deadline time.Duration) Hold {
		h := req(status, deadline, false)
		h.Request.Async = true
		return h
	}
	rec := func(status Status, source string, age time.Duration) Hold {
		m := &CustomModel{ID: uuid.New(), Status: status, Source: source, CreatedAt: now.Add(-age)}
		return Hold{Reservation: Reservation{Owner: Owner{Kind: OwnerCustomModel, ID: m.ID}}, Custom: m}
	}
	gone := func(kind OwnerKind) Hold {
		return Hold{Reservation: Reservation{Owner: Owner{Kind: kind, ID: uuid.New()}}}
	}
	legacy := func(age time.Duration) Hold { return Hold{Reservation: Reservation{CreatedAt: now.Add(-age)}} }
	const saved, pending = `{"image_keys":["k"]}`, `{"image_keys":["k"],"pending":true}`

	for _, tc := range []struct {
		name      string
		h         Hold
		exclusive bool
		want      HoldAction
	}{
		{"request missing", gone(OwnerRequest), false, HoldRelease},
		{"request succeeded", req(RequestSucceeded, -time.Hour, true), false, HoldCharge},
		{"request failed", req(RequestFailed, time.Hour, true), false, HoldRelease},
		{"request running within its deadline", req(RequestRunning, time.Minute, false), false, HoldKeep},
		{"request running past its deadline, within the grace", req(RequestRunning, -30*time.Second, false), false, HoldKeep},
		{"request running past deadline and grace", req(RequestRunning, -61*time.Second, false), false, HoldExpire},
		{"request running, process alone on the store", req(RequestRunning, time.Hour, false), true, HoldExpire},
		{"request in a later state (queued) within its deadline", req("queued", time.Hour, false), true, HoldKeep},
		{"request in a later state past deadline and grace", req("queued", -2*time.Minute, false), false, HoldExpire},
		{"async queued within its wait, process alone", async(RequestQueued, time.Hour), true, HoldKeep},
		{"async running within its budget, process alone: its job runs again", async(RequestRunning, time.Minute), true, HoldKeep},
		{"async running past its deadline, within the grace", async(RequestRunning, -30*time.Second), true, HoldKeep},
		{"async running past deadline and grace", async(RequestRunning, -61*time.Second), false, HoldExpire},
		{"async queued past its wait and grace", async(RequestQueued, -61*time.Second), false, HoldExpire},
		{"async cancelled", func() Hold { h := async(RequestCancelled, 0); h.Request.FinishedAt = &done; return h }(), false, HoldRelease},
		{"record missing", gone(OwnerCustomModel), false, HoldRelease},
		{"record completed", rec(StatusCompleted, saved, time.Hour), false, HoldCharge},
		{"record failed", rec(StatusFailed, saved, time.Hour), false, HoldRelease},
		{"record training", rec(StatusProcessing, saved, 10*time.Hour), true, HoldKeep},
		{"record saving its inputs, within its deadline", rec(StatusProcessing, pending, time.Minute), false, HoldKeep},
		{"record saving its inputs past deadline and grace", rec(StatusProcessing, pending, 2*time.Minute+time.Second), false, HoldExpire},
		{"record without source past deadline and grace", rec(StatusProcessing, "", 3*time.Minute), false, HoldExpire},
		{"record saving its inputs, process alone", rec(StatusProcessing, pending, 0), true, HoldExpire},
		{"hold without owner, recent", legacy(time.Minute), false, HoldKeep},
		{"hold without owner, older than any request", legacy(3*time.Minute + time.Second), false, HoldRelease},
		{"hold without owner, process alone", legacy(0), true, HoldRelease},
	} {
		got := s.Settlement(tc.h, now, tc.exclusive)
		if got.Action != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got.Action, tc.want)
		}
		if got.Action == HoldExpire && tc.h.Custom != nil && got.Reason != ReasonInterrupted {
			t.Errorf("%s: reason %q", tc.name, got.Reason)
		}
		if got.Action == HoldExpire && tc.h.Request != nil && DecodeError(got.Error).Code != CodeInternal {
			t.Errorf("%s: error %s", tc.name, got.Error)
		}
	}
}

func TestBudget(t *testing.T) {
	tm := Timeouts{Generation: 10 * time.Minute, Scoring: 10 * time.Second, Title: 30 * time.Second, Inputs: time.Minute}
	for op, want := range map[string]time.Duration{
		"thumbnail.mdl_4_5": 11 * time.Minute, OpEdit: 11 * time.Minute, OpFaceSwap: 11 * time.Minute,
		OpTitle: 90 * time.Second, OpScore: 70 * time.Second,
	} {
		if got := tm.Budget(op); got != want {
			t.Errorf("Budget(%s) = %v, want %v", op, got, want)
		}
	}
	if tm.longest() != 11*time.Minute {
		t.Errorf("longest %v", tm.longest())
	}
}
