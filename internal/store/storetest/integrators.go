package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"thumbforge/internal/core"
)

// claim claims key for request id with fingerprint fp and returns the live record, if any.
func (e *env) claim(a *core.Account, key, id string, fp string, staleBefore time.Time) *core.IdempotentRequest {
	e.t.Helper()
	live, err := e.s.ClaimIdempotencyKey(e.ctx, &core.IdempotentRequest{AccountID: a.ID, Key: key, Fingerprint: []byte(fp), RequestID: id}, staleBefore)
	must(e.t, err)
	return live
}

// testIdempotency: a key is claimed once; its answer is kept per account; a running claim
// older than the stale bound, and an expired answer, give the key up.
func testIdempotency(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	long := e.clock.Now().Add(-time.Hour)
	if live := e.claim(a, "k1", "r1", "fp1", long); live != nil {
		t.Fatalf("a new key has a live record: %+v", live)
	}
	live := e.claim(a, "k1", "r2", "fp2", long)
	if live == nil || live.State != core.IdempotencyRunning || live.RequestID != "r1" || string(live.Fingerprint) != "fp1" {
		t.Fatalf("running claim: %+v", live)
	}
	if other := e.claim(b, "k1", "r3", "fp1", long); other != nil {
		t.Fatalf("keys are per account: %+v", other)
	}
	wantErr(t, e.s.FinishIdempotencyKey(e.ctx, a.ID, "k1", "r2", 200, nil, []byte("{}")), core.ErrNotFound)
	must(t, e.s.FinishIdempotencyKey(e.ctx, a.ID, "k1", "r1", 402, map[string]string{"Content-Type": "application/json"}, []byte(`{"x":1}`)))
	live = e.claim(a, "k1", "r4", "fp1", long)
	if live == nil || live.State != core.IdempotencyDone || live.Status != 402 || !bytes.Equal(live.Body, []byte(`{"x":1}`)) ||
		live.Header["Content-Type"] != "application/json" {
		t.Fatalf("kept answer: %+v", live)
	}
	wantTime(t, "expires_at", live.ExpiresAt, live.CreatedAt.Add(core.IdempotencyTTL))

	// A released claim frees the key; releasing someone else's claim does nothing.
	if e.claim(a, "k2", "r5", "fp", long) != nil {
		t.Fatal("k2 taken")
	}
	must(t, e.s.ReleaseIdempotencyKey(e.ctx, a.ID, "k2", "other"))
	if e.claim(a, "k2", "r6", "fp", long) == nil {
		t.Fatal("released by another request")
	}
	must(t, e.s.ReleaseIdempotencyKey(e.ctx, a.ID, "k2", "r5"))
	if live := e.claim(a, "k2", "r6", "fp", long); live != nil {
		t.Fatalf("released key still held: %+v", live)
	}

	// A claim running since before the stale bound is taken over; a kept answer is not.
	e.clock.Advance(time.Minute)
	if live := e.claim(a, "k2", "r7", "fp", e.clock.Now()); live != nil {
		t.Fatalf("a stale claim was not taken over: %+v", live)
	}
	wantErr(t, e.s.FinishIdempotencyKey(e.ctx, a.ID, "k2", "r6", 200, nil, nil), core.ErrNotFound)
	if live := e.claim(a, "k1", "r8", "fp1", e.clock.Now()); live == nil || live.State != core.IdempotencyDone {
		t.Fatalf("a kept answer was taken over: %+v", live)
	}

	// After 24 hours an answer is gone: the key is new again, and the sweep deletes it.
	e.clock.Advance(core.IdempotencyTTL - 30*time.Second)
	n, err := e.s.SweepIdempotencyKeys(e.ctx, e.clock.Now())
	must(t, err)
	if n != 2 { // k1's answer and b's claim; k2's claim is a minute younger
		t.Fatalf("swept %d", n)
	}
	if live := e.claim(a, "k1", "r9", "fp9", long); live != nil {
		t.Fatalf("expired answer still live: %+v", live)
	}
}

// testIdempotencyRace: of many simultaneous claims of one key, exactly one wins.
func testIdempotencyRace(e *env) {
	a := e.account(0, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			live, err := e.s.ClaimIdempotencyKey(e.ctx, &core.IdempotentRequest{AccountID: a.ID, Key: "same",
				Fingerprint: []byte("fp"), RequestID: fmt.Sprint("r", i)}, e.clock.Now().Add(-time.Hour))
			if err != nil {
				e.t.Error(err)
				return
			}
			if live == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		e.t.Fatalf("%d claims won, want 1", won)
	}
}

// testWebhooks: one endpoint per account, its secret kept when the URL changes, rotated
// with the old one kept until a time; attempts listed newest first and swept.
func testWebhooks(e *env) {
	t := e.t
	a := e.account(0, 0)
	_, err := e.s.GetWebhook(e.ctx, a.ID)
	wantErr(t, err, core.ErrNotFound)
	w, created, err := e.s.SetWebhook(e.ctx, a.ID, "https://example.com/hook", "whsec_one")
	must(t, err)
	if !created || w.URL != "https://example.com/hook" || w.Secret != "whsec_one" || w.PreviousSecret != "" {
		t.Fatalf("created %v %+v", created, w)
	}
	e.clock.Advance(time.Second)
	w, created, err = e.s.SetWebhook(e.ctx, a.ID, "https://example.com/other", "whsec_two")
	must(t, err)
	if created || w.URL != "https://example.com/other" || w.Secret != "whsec_one" || !w.UpdatedAt.After(w.CreatedAt) {
		t.Fatalf("changed %v %+v", created, w)
	}
	until := e.clock.Now().Add(24 * time.Hour)
	w, err = e.s.RotateWebhookSecret(e.ctx, a.ID, "whsec_three", until)
	must(t, err)
	if w.Secret != "whsec_three" || w.PreviousSecret != "whsec_one" || w.PreviousUntil == nil {
		t.Fatalf("rotated %+v", w)
	}
	wantTime(t, "previous_until", *w.PreviousUntil, until)

	for i := 1; i <= 3; i++ {
		must(t, e.s.RecordWebhookDelivery(e.ctx, &core.WebhookDelivery{AccountID: a.ID, EventID: "msg_1", EventType: core.EventCustomCompleted,
			URL: w.URL, Attempt: i, Status: 500, Error: "HTTP 500", DurationMS: 12}))
		e.clock.Advance(time.Hour)
	}
	list, err := e.s.WebhookDeliveries(e.ctx, a.ID, 2)
	must(t, err)
	if len(list) != 2 || list[0].Attempt != 3 || list[1].Attempt != 2 || list[0].Error != "HTTP 500" || list[0].DurationMS != 12 {
		t.Fatalf("deliveries %+v", list)
	}
	n, err := e.s.SweepWebhookDeliveries(e.ctx, e.clock.Now().Add(-90*time.Minute))
	must(t, err)
	if n != 2 {
		t.Fatalf("swept %d attempts, want 2", n)
	}
	must(t, e.s.DeleteWebhook(e.ctx, a.ID))
	wantErr(t, e.s.DeleteWebhook(e.ctx, a.ID), core.ErrNotFound)
	_, err = e.s.RotateWebhookSecret(e.ctx, a.ID, "whsec_four", until)
	wantErr(t, err, core.ErrNotFound)
}
