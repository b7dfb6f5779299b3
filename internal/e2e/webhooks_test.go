package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/api/apitest"
	"thumbforge/internal/app"
	"thumbforge/internal/core"
	"thumbforge/internal/webhooks"
)

// delivery is one request a receiver got.
type delivery struct {
	Path   string
	Header http.Header
	Body   []byte
	Status int // what the receiver answered
}

// receiver is a webhook endpoint: it answers the statuses it is given in turn (then 200)
// and hands every delivery to the test.
type receiver struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	answers []int
	got     chan delivery
}

func newReceiver(t testing.TB, answers ...int) *receiver {
	rc := &receiver{t: t, answers: answers, got: make(chan delivery, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		status := http.StatusOK
		if len(rc.answers) > 0 {
			status, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.mu.Unlock()
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "http://"+r.Host+"/elsewhere")
		}
		w.WriteHeader(status)
		rc.got <- delivery{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Status: status}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// answer sets the statuses of the next deliveries.
func (rc *receiver) answer(statuses ...int) {
	rc.mu.Lock()
	rc.answers = statuses
	rc.mu.Unlock()
}

// next waits for the next delivery.
func (rc *receiver) next() delivery {
	rc.t.Helper()
	select {
	case d := <-rc.got:
		return d
	case <-time.After(60 * time.Second):
		rc.t.Fatal("no webhook delivery arrived")
	}
	return delivery{}
}

// event is a delivery's body.
type event struct {
	Type      string         `json:"type"`
	Timestamp time.Time      `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

// check verifies a delivery as a receiver must (signature with secret, timestamp, the
// document's schema of its event) and decodes it.
func (d delivery) check(t testing.TB, secret string) event {
	t.Helper()
	if err := webhooks.Verify(secret, d.Header, d.Body, time.Now()); err != nil {
		t.Fatalf("delivery does not verify: %v\n%v %s", err, d.Header, d.Body)
	}
	var ev event
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		t.Fatal(err)
	}
	c, err := apitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ValidateWebhook(ev.Type, d.Body); err != nil {
		t.Fatalf("the document does not describe this delivery: %v\n%s", err, d.Body)
	}
	return ev
}

// hook points the env account's webhook at url and returns its secret.
func (e *env) hook(url string) string {
	e.t.Helper()
	secret, err := webhooks.NewSecret()
	if err != nil {
		e.t.Fatal(err)
	}
	if _, _, err := e.App.Store.SetWebhook(context.Background(), e.Account, url, secret); err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// quickWaits are the webhook retry waits of tests: milliseconds instead of seconds.
var quickWaits = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}

func quickRetries(c *app.Config) { c.WebhookRetries = quickWaits }

func (e *env) styleFromData(name string) string {
	e.t.Helper()
	d := dataURL(e.t, testImage(160, 90, 30))
	r := e.post("/v2/custom/style", map[string]any{"name": name, "image_base64s": []string{d, d, d}})
	if r.Status != 200 {
		e.t.Fatalf("create style: %d %s", r.Status, r.Raw)
	}
	return r.str("id")
}

func TestWebhookCustomEventsSignedAndRetried(t *testing.T) {
	e := start(t, 200, quickRetries)
	rc := newReceiver(t, http.StatusInternalServerError)
	secret := e.hook(rc.srv.URL + "/hooks")

	id := e.styleFromData("Hooked")
	first, second := rc.next(), rc.next()
	if first.Status != 500 || second.Status != 200 {
		t.Fatalf("answers %d, %d", first.Status, second.Status)
	}
	ev1, ev2 := first.check(t, secret), second.check(t, secret)
	if first.Header.Get("webhook-id") != second.Header.Get("webhook-id") || string(first.Body) != string(second.Body) {
		t.Fatalf("a retry is not the same event:\n%v %s\n%v %s", first.Header, first.Body, second.Header, second.Body)
	}
	// The data is what GET /v2/custom/{id} answers, but for request_id.
	got := e.do("GET", "/v2/custom/"+id, e.Key, nil)
	if ev2.Type != "custom.completed" || ev1.Data["id"] != id || ev2.Data["status"] != "completed" || ev2.Data["progress"] != 100.0 ||
		ev2.Data["name"] != got.str("name") || ev2.Data["mode"] != "style" || ev2.Data["portrait_url"] == nil || ev2.Data["request_id"] != nil {
		t.Fatalf("event %+v, record %s", ev2, got.Raw)
	}
	e.decodeOutput(ev2.Data["portrait_url"].(string))
	if d := time.Since(ev2.Timestamp); d < 0 || d > time.Minute {
		t.Fatalf("event timestamp %v", ev2.Timestamp)
	}
	// Both attempts are recorded, newest first.
	deadline := time.Now().Add(10 * time.Second)
	var list []core.WebhookDelivery
	for len(list) < 2 && time.Now().Before(deadline) {
		list, _ = e.App.Store.WebhookDeliveries(context.Background(), e.Account, 10)
		time.Sleep(20 * time.Millisecond)
	}
	if len(list) != 2 || list[1].Attempt != 1 || list[1].Status != 500 || list[1].Error != "HTTP 500" ||
		list[0].Attempt != 2 || list[0].Status != 200 || list[0].Error != "" || list[0].EventType != core.EventCustomCompleted {
		t.Fatalf("deliveries %+v", list)
	}

	// A failed persona is announced as custom.failed; after a rotation both secrets sign.
	rotated, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.Store.RotateWebhookSecret(context.Background(), e.Account, rotated, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	cat := photoDataURL(t, "chelsea.jpg")
	r := e.post("/v2/custom/persona", map[string]any{"name": "Faceless", "image_base64s": []string{cat, cat, cat}})
	failed := rc.next()
	ev := failed.check(t, rotated)
	failed.check(t, secret)
	if ev.Type != "custom.failed" || ev.Data["id"] != r.str("id") || ev.Data["status"] != "failed" || ev.Data["portrait_url"] != nil {
		t.Fatalf("failed event %s", failed.Body)
	}
}

// TestWebhookURLGuard: deliveries follow the image URLs' address rules and no redirect.
func TestWebhookURLGuard(t *testing.T) {
	e := start(t, 200, quickRetries, func(c *app.Config) { c.AllowPrivateFetch = false })
	rc := newReceiver(t)
	e.hook(rc.srv.URL) // loopback: refused without --allow-private-fetch
	e.styleFromData("Guarded")
	list := e.waitDeliveries(len(quickWaits) + 2)
	for _, d := range list {
		if d.Status != 0 || d.Error != "the URL's address is private or reserved (allowed only with --allow-private-fetch)" {
			t.Fatalf("attempt %+v", d)
		}
	}
	select {
	case d := <-rc.got:
		t.Fatalf("a refused address was reached: %s", d.Body)
	default:
	}

	// With private addresses allowed, a redirect is the endpoint's answer, not followed:
	// every attempt (the first and one per wait) is a failure, and nothing reaches the
	// redirect's target.
	e2 := start(t, 200, quickRetries)
	redirect := newReceiver(t, 307, 307, 307, 307)
	e2.hook(redirect.srv.URL + "/in")
	e2.styleFromData("Redirected")
	attempts := len(quickWaits) + 2
	for i, d := range e2.waitDeliveries(attempts) {
		if d.Status != 307 || d.Error != "HTTP 307: redirects are not followed" {
			t.Fatalf("attempt %d: %+v", i, d)
		}
	}
	for range attempts {
		if d := redirect.next(); d.Status != 307 || d.Path != "/in" {
			t.Fatalf("%s answered %d", d.Path, d.Status)
		}
	}
	select {
	case d := <-redirect.got:
		t.Fatalf("a delivery after the last attempt, or the redirect followed: %s", d.Path)
	case <-time.After(300 * time.Millisecond):
	}
}

// waitDeliveries waits until n attempts are recorded for the env's account.
func (e *env) waitDeliveries(n int) []core.WebhookDelivery {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		list, err := e.App.Store.WebhookDeliveries(context.Background(), e.Account, 100)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(list) >= n {
			return list
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d delivery attempts recorded, want %d", len(list), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
