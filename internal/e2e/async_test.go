package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
	"thumbforge/internal/engines/enginetest/comfyfake"
)

// fastProgress makes running asynchronous requests write progress and look for a
// cancellation every 50 ms instead of every second.
func fastProgress(c *app.Config) { c.ProgressInterval = 50 * time.Millisecond }

var preferAsync = http.Header{"Prefer": {"respond-async"}}

// async sends a generating POST with Prefer: respond-async and the key.
func (e *env) async(path, key string, body any) response {
	e.t.Helper()
	return e.doWith(context.Background(), "POST", path, key, preferAsync, body)
}

// accepted checks a 202 answer and returns its request id.
func accepted(t *testing.T, r response) string {
	t.Helper()
	if r.Status != http.StatusAccepted {
		t.Fatalf("want 202, got %d %s", r.Status, r.Raw)
	}
	id := r.str("request_id")
	if _, err := uuid.Parse(id); err != nil || r.str("status") != "queued" || r.str("status_url") != "/v2/requests/"+id {
		t.Fatalf("accepted body %s", r.Raw)
	}
	if r.Header.Get("Location") != "/v2/requests/"+id || r.Header.Get("Preference-Applied") != "respond-async" ||
		r.Header.Get("X-Request-Id") != id {
		t.Fatalf("accepted headers %v", r.Header)
	}
	return id
}

// waitEnded polls GET /v2/requests/{id} at base (the env's server when "") until the
// request has ended, and returns that answer.
func (e *env) waitEnded(base, id, key string) response {
	e.t.Helper()
	var last response
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		last = e.do("GET", base+"/v2/requests/"+id, key, nil)
		if last.Status != 200 {
			e.t.Fatalf("GET request: %d %s", last.Status, last.Raw)
		}
		switch last.str("status") {
		case "succeeded", "failed", "cancelled":
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("request %s never ended: %s", id, last.Raw)
	return last
}

// sameKeys fails unless a and b have the same set of fields.
func sameKeys(t *testing.T, what string, a, b map[string]any) {
	t.Helper()
	var ka, kb []string
	for k := range a {
		ka = append(ka, k)
	}
	for k := range b {
		kb = append(kb, k)
	}
	if len(ka) != len(kb) {
		t.Fatalf("%s: fields %v, want %v", what, ka, kb)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			t.Fatalf("%s: field %q not in %v", what, k, kb)
		}
	}
}

// TestAsyncPolledToSuccess: each generating route answers 202 with Prefer: respond-async,
// the request runs on the queue and its status ends succeeded with exactly the shape of
// the synchronous body; credits are held at acceptance and charged once.
func TestAsyncPolledToSuccess(t *testing.T) {
	e := start(t, 1000, fastProgress)
	img := dataURL(t, testImage(640, 360, 11))
	cases := []struct {
		path  string
		body  map[string]any
		price int64
	}{
		{"/v2/thumbnail/text", map[string]any{"prompt": "Async travel tips", "model": "mdl_3", "format": "16:9"}, 16},
		{"/v2/thumbnail/edit", map[string]any{"image_base64": img, "prompt": "make it brighter", "format": "1:1"}, 12},
		{"/v2/thumbnail/score", map[string]any{"image_base64": img}, 3},
		{"/v2/title/text", map[string]any{"prompt": "I rebuilt a vintage bicycle"}, 8},
	}
	balance := int64(1000)
	for _, c := range cases {
		sync := e.post(c.path, c.body)
		if sync.Status != 200 {
			t.Fatalf("%s sync: %d %s", c.path, sync.Status, sync.Raw)
		}
		balance -= c.price
		id := accepted(t, e.async(c.path, e.Key, c.body))
		if got := e.balance(e.Account); got != balance-c.price {
			t.Fatalf("%s: balance %d after acceptance, want %d (held at once)", c.path, got, balance-c.price)
		}
		balance -= c.price
		end := e.waitEnded("", id, e.Key)
		if end.str("status") != "succeeded" || end.Body["progress"] != float64(100) || end.Body["error"] != nil ||
			end.Body["finished_at"] == nil || end.Body["queue_position"] != nil {
			t.Fatalf("%s: ended %s", c.path, end.Raw)
		}
		result, _ := end.Body["result"].(map[string]any)
		sameKeys(t, c.path+" result", result, sync.Body)
		if result["request_id"] != id {
			t.Fatalf("%s: result request_id %v, want %s", c.path, result["request_id"], id)
		}
		if out, ok := result["output"].(string); ok {
			if st, _, _ := e.fetch(out); st != 200 {
				t.Fatalf("%s: output link %d", c.path, st)
			}
		}
		// The synchronous request is recorded the same way: its id finds its exact body.
		rec := e.do("GET", "/v2/requests/"+sync.str("request_id"), e.Key, nil)
		if rec.Status != 200 || rec.str("status") != "succeeded" || !reflect.DeepEqual(rec.Body["result"], sync.Body) {
			t.Fatalf("%s: sync request recorded as %s, answered %s", c.path, rec.Raw, sync.Raw)
		}
	}
	if got := e.balance(e.Account); got != balance {
		t.Fatalf("balance %d, want %d", got, balance)
	}
}

// TestAsyncRefusalsAndLookups: refusals answer synchronously and queue nothing; lookups
// are per account; failures keep the synchronous error body; finished requests cannot be
// cancelled; a keyed async request replays its 202.
func TestAsyncRefusalsAndLookups(t *testing.T) {
	e := start(t, 20, fastProgress)
	_, otherKey := e.newAccount(100)
	body := map[string]any{"prompt": "Async refusals", "model": "mdl_3", "format": "16:9"}

	bad := e.async("/v2/thumbnail/text", e.Key, map[string]any{"prompt": "x", "model": "mdl_9", "format": "16:9"})
	if bad.Status != 400 || bad.code() != "VALIDATION_ERROR" {
		t.Fatalf("invalid async: %d %s", bad.Status, bad.Raw)
	}
	if e.do("GET", "/v2/requests/"+bad.str("request_id"), e.Key, nil).Status != 404 {
		t.Fatal("a refused request was recorded")
	}
	if r := e.async("/v2/thumbnail/text", "", body); r.Status != 401 {
		t.Fatalf("no key: %d", r.Status)
	}
	if r := e.async("/v2/thumbnail/text", "mdl_"+strings.Repeat("a", 40), body); r.Status != 401 {
		t.Fatalf("unknown key: %d", r.Status)
	}

	id := accepted(t, e.async("/v2/thumbnail/text", e.Key, body)) // 16 of 20
	if r := e.async("/v2/thumbnail/text", e.Key, body); r.Status != 402 || r.code() != "INSUFFICIENT_CREDITS" {
		t.Fatalf("short balance: %d %s", r.Status, r.Raw)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if r := e.do(m, "/v2/requests/"+id, otherKey, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Fatalf("%s of another account's request: %d %s", m, r.Status, r.Raw)
		}
	}
	for _, bogus := range []string{uuid.NewString(), "not-an-id"} {
		if r := e.do("GET", "/v2/requests/"+bogus, e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Fatalf("GET %s: %d %s", bogus, r.Status, r.Raw)
		}
	}
	e.waitEnded("", id, e.Key)
	r := e.do("DELETE", "/v2/requests/"+id, e.Key, nil)
	if r.Status != 409 || r.code() != "CONFLICT" || !strings.Contains(string(r.Raw), `"succeeded"`) {
		t.Fatalf("cancel of a finished request: %d %s", r.Status, r.Raw)
	}

	// A failure after the hold: the synchronous error body, kept; nothing charged.
	missing := e.serve("/gone.jpg", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	sync := e.post("/v2/thumbnail/score", map[string]any{"image_url": missing})
	if sync.Status != 400 || sync.code() != "INVALID_IMAGE" {
		t.Fatalf("sync failure: %d %s", sync.Status, sync.Raw)
	}
	rec := e.do("GET", "/v2/requests/"+sync.str("request_id"), e.Key, nil)
	if rec.str("status") != "failed" || !reflect.DeepEqual(rec.Body["error"], sync.Body) || rec.Body["result"] != nil {
		t.Fatalf("sync failure recorded as %s, answered %s", rec.Raw, sync.Raw)
	}
	fid := accepted(t, e.async("/v2/thumbnail/score", e.Key, map[string]any{"image_url": missing}))
	end := e.waitEnded("", fid, e.Key)
	errBody, _ := end.Body["error"].(map[string]any)
	if end.str("status") != "failed" || errBody["request_id"] != fid || (response{Body: errBody}).code() != "INVALID_IMAGE" {
		t.Fatalf("async failure: %s", end.Raw)
	}
	if got := e.balance(e.Account); got != 4 {
		t.Fatalf("balance %d, want 4 (only the success charged)", got)
	}
	if r := e.do("DELETE", "/v2/requests/"+sync.str("request_id"), e.Key, nil); r.Status != 409 {
		t.Fatalf("cancel of a synchronous request: %d %s", r.Status, r.Raw)
	}

	// Idempotency-Key: the repeat answers the same 202 and queues nothing more.
	e.App.Store.Grant(context.Background(), e.Account, 100, "test")
	h := http.Header{"Prefer": {"respond-async"}, "Idempotency-Key": {"async-1"}}
	first := e.doWith(context.Background(), "POST", "/v2/title/text", e.Key, h, map[string]any{"prompt": "Keyed async"})
	again := e.doWith(context.Background(), "POST", "/v2/title/text", e.Key, h, map[string]any{"prompt": "Keyed async"})
	kid := accepted(t, first)
	if again.Status != 202 || string(again.Raw) != string(first.Raw) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("Location") != first.Header.Get("Location") || again.Header.Get("Preference-Applied") != "respond-async" {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Raw)
	}
	e.waitEnded("", kid, e.Key)
	if got := e.balance(e.Account); got != 96 {
		t.Fatalf("balance %d, want 96: one title charged", got)
	}

	// A version 1 request ignores the preference, and is recorded in version 2's shape.
	v1 := e.doWith(context.Background(), "POST", "/v1/title", e.Key, preferAsync, map[string]any{"prompt": "Old clients", "model": "mdl-3"})
	if v1.Status != 200 || v1.str("output") == "" {
		t.Fatalf("v1 with Prefer: %d %s", v1.Status, v1.Raw)
	}
	rec = e.do("GET", "/v2/requests/"+v1.Header.Get("X-Request-Id"), e.Key, nil)
	if res, _ := rec.Body["result"].(map[string]any); rec.str("status") != "succeeded" || rec.str("operation") != "title" || res["request_id"] != v1.Header.Get("X-Request-Id") {
		t.Fatalf("v1 request recorded as %s", rec.Raw)
	}
}

// TestAsyncCancelInterruptsComfyUI: with one async worker, a request runs on a ComfyUI job
// that never ends (its progress shown) while a second waits in the queue (its position
// shown). Cancelling the queued one gives its credits back. The running one holds its
// key's in-flight slot: with a limit of 1 a synchronous request is refused, while reading
// and cancelling still work. Cancelling it gives its credits back at once, interrupts the
// engine's prompt and drops it from ComfyUI's queue, and frees the slot; a second cancel
// is 409.
func TestAsyncCancelInterruptsComfyUI(t *testing.T) {
	fake, url := comfyFake(t)
	e := start(t, 1000, withComfyUI(nil, url), fastProgress, func(c *app.Config) { c.AsyncWorkers = 1 })
	fake.Arm(comfyfake.Hang, 1)
	body := map[string]any{"prompt": "Never finishes", "model": "mdl_3", "format": "16:9"}
	id := accepted(t, e.async("/v2/thumbnail/text", e.Key, body))
	waitUntil(t, "the prompt to reach ComfyUI", func() bool { return len(fake.Prompts()) == 1 })
	waitUntil(t, "its progress to be written", func() bool {
		r := e.do("GET", "/v2/requests/"+id, e.Key, nil)
		p, _ := r.Body["progress"].(float64)
		return r.str("status") == "running" && p > 0 && p < 100 && r.Body["queue_position"] == nil
	})

	qid := accepted(t, e.async("/v2/thumbnail/text", e.Key, map[string]any{"prompt": "Waits its turn", "model": "mdl_3", "format": "16:9"}))
	q := e.do("GET", "/v2/requests/"+qid, e.Key, nil)
	if q.str("status") != "queued" || q.Body["queue_position"] != float64(1) || q.Body["progress"] != float64(0) || e.balance(e.Account) != 1000-32 {
		t.Fatalf("second request: %s, balance %d", q.Raw, e.balance(e.Account))
	}
	if r := e.do("DELETE", "/v2/requests/"+qid, e.Key, nil); r.Status != 200 || r.str("status") != "cancelled" || e.balance(e.Account) != 1000-16 {
		t.Fatalf("cancel of the queued request: %d %s, balance %d", r.Status, r.Raw, e.balance(e.Account))
	}

	if _, err := e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	if r := e.post("/v2/thumbnail/score", map[string]any{"image_base64": dataURL(t, testImage(320, 180, 3))}); r.Status != 429 || r.code() != "TOO_MANY_REQUESTS" {
		t.Fatalf("a synchronous request beside the running one, limit 1: %d %s", r.Status, r.Raw)
	}
	r := e.do("DELETE", "/v2/requests/"+id, e.Key, nil)
	errBody, _ := r.Body["error"].(map[string]any)
	if r.Status != 200 || r.str("status") != "cancelled" || (response{Body: errBody}).code() != "CANCELLED" || r.Body["finished_at"] == nil {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("balance %d after the cancel, want 1000", got)
	}
	pid := fake.Prompts()[0].ID
	waitUntil(t, "the interrupt", func() bool {
		in := fake.Interrupts()
		return len(in) == 1 && in[0].PromptID == pid && in[0].Hit
	})
	waitUntil(t, "the queue delete", func() bool { d := fake.Deleted(); return len(d) == 1 && d[0] == pid })
	if r := e.do("DELETE", "/v2/requests/"+id, e.Key, nil); r.Status != 409 || r.code() != "CONFLICT" {
		t.Fatalf("second cancel: %d %s", r.Status, r.Raw)
	}
	waitUntil(t, "the work to stop", func() bool { return !e.App.Service.Running(uuid.MustParse(id)) })
	if got := e.do("GET", "/v2/requests/"+id, e.Key, nil); got.str("status") != "cancelled" || e.balance(e.Account) != 1000 {
		t.Fatalf("after the work stopped: %s, balance %d", got.Raw, e.balance(e.Account))
	}
	if r := e.post("/v2/thumbnail/score", map[string]any{"image_base64": dataURL(t, testImage(320, 180, 3))}); r.Status != 200 {
		t.Fatalf("the stopped work kept its slot: %d %s", r.Status, r.Raw)
	}
}

// TestAsyncWebhooks: an asynchronous request that succeeds sends request.succeeded and
// one that fails request.failed, signed, with what GET /v2/requests/{id} answers.
func TestAsyncWebhooks(t *testing.T) {
	e := start(t, 1000, fastProgress, quickRetries)
	rc := newReceiver(t)
	secret := e.hook(rc.srv.URL + "/hook")
	id := accepted(t, e.async("/v2/title/text", e.Key, map[string]any{"prompt": "Webhook titles"}))
	d := rc.next()
	ev := d.check(t, secret)
	got := e.do("GET", "/v2/requests/"+id, e.Key, nil)
	if ev.Type != "request.succeeded" || d.Header.Get("webhook-id") != "msg_"+id+"_succeeded" || !reflect.DeepEqual(ev.Data, got.Body) {
		t.Fatalf("event %s %s\nGET %s", ev.Type, d.Body, got.Raw)
	}
	missing := e.serve("/gone.jpg", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	fid := accepted(t, e.async("/v2/thumbnail/score", e.Key, map[string]any{"image_url": missing}))
	ev = rc.next().check(t, secret)
	if ev.Type != "request.failed" || ev.Data["request_id"] != fid || ev.Data["status"] != "failed" {
		t.Fatalf("failure event %+v", ev)
	}
	var errBody struct {
		Error struct{ Code string } `json:"error"`
	}
	raw, _ := json.Marshal(ev.Data["error"])
	if json.Unmarshal(raw, &errBody); errBody.Error.Code != "INVALID_IMAGE" {
		t.Fatalf("failure event error %s", raw)
	}
}
