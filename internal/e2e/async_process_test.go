package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
	"thumbforge/internal/core"
	"thumbforge/internal/engines/enginetest/comfyfake"
	"thumbforge/internal/store/sqlite"
	"thumbforge/internal/testutil"
)

// TestAsyncSurvivesSIGKILL: a real server accepts an asynchronous request and is killed
// with SIGKILL once its job has started the work (its credits held, the request running);
// the next start on the same data runs the job again: the request succeeds, charged once,
// the balance equal to the ledger's sum.
func TestAsyncSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills real server processes")
	}
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "thumbforge.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	crashed := serveCrashing(t, data, core.StepReserved)
	e := &env{t: t, URL: crashed.URL, client: checkedClient(t)}
	// The job may start, and kill the server, before the 202 is written: the answer is
	// checked when it came, the request found in the database either way.
	ans := e.async("/v2/thumbnail/text", crashed.Key, map[string]any{"prompt": "Survives a crash", "model": "mdl_3", "format": "16:9"})
	if ans.Status != http.StatusAccepted && ans.Status != -1 {
		t.Fatalf("want 202 or a connection cut by the kill, got %d %s", ans.Status, ans.Raw)
	}
	select {
	case <-crashed.Done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server never started the request's work")
	}
	if crashed.Err == nil || !strings.Contains(crashed.Err.Error(), "killed") {
		t.Fatalf("server ended with %v, want killed", crashed.Err)
	}
	key, _, err := st.KeyByHash(context.Background(), core.HashKey(crashed.Key))
	if err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenAsyncRequests(context.Background())
	if err != nil || len(open) != 1 {
		t.Fatalf("open asynchronous requests after the kill: %v %v, want one", open, err)
	}
	id := open[0].String()
	if ans.Status == http.StatusAccepted && accepted(t, ans) != id {
		t.Fatalf("accepted %s, the database has %s", ans.str("request_id"), id)
	}
	if r, err := st.GetRequest(context.Background(), key.AccountID, uuid.MustParse(id)); err != nil || r.Status != core.RequestRunning {
		t.Fatalf("after the kill the request is %+v (%v), want running", r, err)
	}
	again := testutil.StartServe(t, data, nil, "--allow-private-fetch")
	e.URL = again.URL
	end := e.waitEnded("", id, again.Key)
	result, _ := end.Body["result"].(map[string]any)
	if end.str("status") != "succeeded" || result["request_id"] != id {
		t.Fatalf("after the restart: %s", end.Raw)
	}
	waitSettled(t, st, key.AccountID, "async after SIGKILL")
	if b := ledgerBalance(t, st, key.AccountID); b != app.DevCredits-16 {
		t.Fatalf("balance %d, want %d: charged once", b, app.DevCredits-16)
	}
	again.Cmd.Process.Signal(os.Interrupt)
	<-again.Done
}

// TestAsyncCancelAcrossReplicas: two servers on one PostgreSQL database run one ComfyUI;
// a request accepted by the first runs on whichever replica's queue took it, and is
// cancelled through the other: the replica running it notices, interrupts the engine's
// job, and the credits are back.
func TestAsyncCancelAcrossReplicas(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	fake, url := comfyFake(t)
	onPG := func(c *app.Config) { c.Database = dsn }
	first := start(t, 1000, onPG, withComfyUI(nil, url), fastProgress)
	cfg := app.Defaults()
	cfg.DataDir, cfg.Database, cfg.MaintenanceTTL = t.TempDir(), dsn, 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	withComfyUI(nil, url)(&cfg)
	fastProgress(&cfg)
	second := apptest.StartApp(t, cfg)
	fake.Arm(comfyfake.Hang, 1)

	id := accepted(t, first.async("/v2/thumbnail/text", first.Key, map[string]any{"prompt": "Cancelled elsewhere", "model": "mdl_3", "format": "16:9"}))
	rid := uuid.MustParse(id)
	waitUntil(t, "the prompt to reach ComfyUI", func() bool { return len(fake.Prompts()) == 1 })
	runner, other := first.App, second
	if second.Service.Running(rid) {
		runner, other = second, first.App
	}
	if !runner.Service.Running(rid) || other.Service.Running(rid) {
		t.Fatal("the request runs on neither replica, or on both")
	}
	r := first.do("DELETE", other.URL()+"/v2/requests/"+id, first.Key, nil)
	if r.Status != 200 || r.str("status") != "cancelled" {
		t.Fatalf("cancel on the other replica: %d %s", r.Status, r.Raw)
	}
	if got := first.balance(first.Account); got != 1000 {
		t.Fatalf("balance %d after the cancel, want 1000", got)
	}
	pid := fake.Prompts()[0].ID
	waitUntil(t, "the running replica to interrupt the engine", func() bool {
		in := fake.Interrupts()
		return len(in) == 1 && in[0].PromptID == pid && in[0].Hit
	})
	waitUntil(t, "the work to stop", func() bool { return !runner.Service.Running(rid) })
	if got := first.do("GET", runner.URL()+"/v2/requests/"+id, first.Key, nil); got.str("status") != "cancelled" {
		t.Fatalf("after the work stopped: %s", got.Raw)
	}
}
