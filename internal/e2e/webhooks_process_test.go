package e2e

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/testutil"
)

// thumbforgeJSON runs an admin command of the real binary with --json and decodes its output.
func thumbforgeJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, err := exec.Command(testutil.Thumbforge(t), append(args, "--json")...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("thumbforge %v: %v %s", args, err, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("thumbforge %v printed %s", args, out)
	}
}

// TestWebhookRetriedAfterRestart: the endpoint fails the first attempt, the server is
// killed (SIGKILL) before the retry, and the restarted server delivers the same event.
// The webhook is set and inspected with the real CLI.
func TestWebhookRetriedAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	data := t.TempDir()
	p := testutil.StartServe(t, data, nil, "--allow-private-fetch")
	_, acct := p.Call(t, "GET", "/v2/account", nil)
	account, _ := acct["account_id"].(string)
	rc := newReceiver(t, http.StatusServiceUnavailable)
	var set struct {
		URL, Secret string
		AccountID   string `json:"account_id"`
	}
	thumbforgeJSON(t, &set, "webhooks", "set", "--data", data, "--account", account, "--url", rc.srv.URL+"/in")
	if set.URL != rc.srv.URL+"/in" || set.AccountID != account || len(set.Secret) < 40 {
		t.Fatalf("webhooks set: %+v", set)
	}
	d := photoDataURL(t, "coffee.jpg")
	status, body := p.Call(t, "POST", "/v2/custom/style", map[string]any{"name": "Restarted", "image_base64s": []string{d, d, d}})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	first := rc.next()
	// Once the failed attempt is on record, the process dies before its retry.
	type attempt struct {
		EventID string `json:"event_id"`
		Attempt int
		Status  int
		Error   string
	}
	var list []attempt
	deliveries := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for len(list) < n && time.Now().Before(deadline) {
			thumbforgeJSON(t, &list, "webhooks", "deliveries", "--data", data, "--account", account)
			time.Sleep(20 * time.Millisecond)
		}
	}
	deliveries(1)
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.Done
	testutil.StartServe(t, data, nil, "--allow-private-fetch")
	second := rc.next()
	ev := second.check(t, set.Secret)
	first.check(t, set.Secret)
	if first.Status != 503 || second.Status != 200 || first.Header.Get("webhook-id") != second.Header.Get("webhook-id") ||
		string(first.Body) != string(second.Body) || ev.Type != "custom.completed" || ev.Data["id"] != body["id"] {
		t.Fatalf("first %d %v %s\nsecond %d %v %s", first.Status, first.Header, first.Body, second.Status, second.Header, second.Body)
	}
	// The CLI lists both attempts, newest first; `show` never prints the secret.
	deliveries(2)
	if len(list) != 2 || list[0].Status != 200 || list[1].Status != 503 || list[1].Error != "HTTP 503" ||
		list[0].EventID != first.Header.Get("webhook-id") {
		t.Fatalf("deliveries %+v", list)
	}
	var shown map[string]any
	thumbforgeJSON(t, &shown, "webhooks", "show", "--data", data, "--account", account)
	if shown["url"] != set.URL || shown["secret"] != nil {
		t.Fatalf("show: %v", shown)
	}
}
