package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
	"thumbforge/internal/core"
	"thumbforge/internal/store/sqlite"
	"thumbforge/internal/testutil"
)

// crashPath is one paid path of the fault-injection matrix: the request that starts it,
// its price, the steps it meets and the first step after which its work counts as
// delivered (charged after a crash there or later; released before).
type crashPath struct {
	name      string
	method    string
	path      string
	body      func(t *testing.T, zipURL string) any
	price     int64
	steps     []string
	delivered string
	// async sends the request with Prefer: respond-async: its job runs the steps and runs
	// again after the restart.
	async bool
}

var requestSteps = []string{core.StepReserved, core.StepOutputRecorded, core.StepOutputStored, core.StepWorked, core.StepSettled}
var trainingSteps = []string{core.StepCustomCreated, core.StepCustomBlob, core.StepCustomSaved, core.StepCustomQueued,
	core.StepTrainingLoaded, core.StepTrainingStored, core.StepTrainingDone}

func crashPaths() []crashPath {
	img := func(t *testing.T) string { return dataURL(t, testImage(320, 180, 7)) }
	return []crashPath{
		{"thumbnail", "POST", "/v2/thumbnail/text", func(t *testing.T, _ string) any {
			return map[string]any{"prompt": "Crash test thumbnail", "model": "mdl_3", "format": "16:9"}
		}, 16, requestSteps, core.StepSettled, false},
		{"edit", "POST", "/v2/thumbnail/edit", func(t *testing.T, _ string) any {
			return map[string]any{"image_base64": img(t), "prompt": "make it brighter", "format": "16:9"}
		}, 12, requestSteps, core.StepSettled, false},
		{"faceswap", "POST", "/v2/thumbnail/faceswap", func(t *testing.T, _ string) any {
			face := photo(t, "astronaut.jpg")
			return map[string]any{"image_base64": dataURL(t, mirrored(face)), "face_image_base64": dataURL(t, face), "format": "1:1"}
		}, 12, requestSteps, core.StepSettled, false},
		{"titles", "POST", "/v2/title/text", func(t *testing.T, _ string) any {
			return map[string]any{"prompt": "I rebuilt a vintage bicycle"}
		}, 8, []string{core.StepReserved, core.StepWorked, core.StepSettled}, core.StepSettled, false},
		{"score", "POST", "/v2/thumbnail/score", func(t *testing.T, _ string) any {
			return map[string]any{"image_base64": img(t)}
		}, 3, []string{core.StepReserved, core.StepWorked, core.StepSettled}, core.StepSettled, false},
		{"async-thumbnail", "POST", "/v2/thumbnail/text", func(t *testing.T, _ string) any {
			return map[string]any{"prompt": "Crash test async thumbnail", "model": "mdl_3", "format": "16:9"}
		}, 16, requestSteps, core.StepReserved, true},
		{"training-v1-persona", "POST", "/v1/persona", func(t *testing.T, zipURL string) any {
			return map[string]any{"name": "Crash persona", "training_data": zipURL}
		}, trainingPrice, trainingSteps, core.StepCustomSaved, false},
		{"training-v2-style", "POST", "/v2/custom/style", func(t *testing.T, _ string) any {
			return map[string]any{"name": "Crash style", "image_base64s": []string{img(t), img(t), img(t)}}
		}, trainingPrice, trainingSteps, core.StepCustomSaved, false},
	}
}

// TestCrashAtEveryStep is the fault-injection matrix: for every paid path and every step
// it meets, a real server is killed with SIGKILL at that step (THUMBFORGE_CRASH_AT), a
// new one is started on the same data, and the account's credits must have settled: no
// hold left, the balance equal to the ledger's sum, charged exactly when the work was
// delivered. At the end no blob is left that no record owns. docs/BENCHMARKS.md has the
// matrix.
func TestCrashAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills real server processes")
	}
	testutil.Thumbforge(t) // build once, before the parallel subtests
	face := photoBytes(t, "astronaut.jpg")
	zips := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(zipOf(t, "a.jpg", face, "b.jpg", face))
	}))
	t.Cleanup(zips.Close)
	for _, p := range crashPaths() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			runCrashPath(t, p, zips.URL+"/persona.zip")
		})
	}
}

// runCrashPath runs one path's cells on one data directory, an account per step.
func runCrashPath(t *testing.T, p crashPath, zipURL string) {
	data := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "thumbforge.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	delivered := false
	for _, step := range p.steps {
		delivered = delivered || step == p.delivered
		acct, key := apptest.NewAccount(t, st, "crash "+step, 1000)
		crashed := serveCrashing(t, data, step)
		go send(crashed.URL, p.method, p.path, key, p.async, p.body(t, zipURL))
		select {
		case <-crashed.Done:
		case <-time.After(90 * time.Second):
			t.Fatalf("%s: the server never reached step %s", p.name, step)
		}
		if crashed.Err == nil || !strings.Contains(crashed.Err.Error(), "killed") {
			t.Fatalf("%s at %s: server ended with %v, want killed", p.name, step, crashed.Err)
		}
		// The next start settles what the crash left (SQLite: at once, the data dir being
		// locked to it); training left to run finishes on its own.
		again := testutil.StartServe(t, data, nil, "--allow-private-fetch")
		want := int64(1000)
		if delivered {
			want -= p.price
		}
		waitSettled(t, st, acct, fmt.Sprintf("%s at %s", p.name, step))
		if b := ledgerBalance(t, st, acct); b != want {
			t.Errorf("%s at %s: balance %d, want %d (delivered %v)", p.name, step, b, want, delivered)
		}
		again.Cmd.Process.Signal(os.Interrupt)
		<-again.Done
	}
	checkOwnedBlobs(t, st, filepath.Join(data, "blobs"))
}

// serveCrashing starts a server that kills itself at step.
func serveCrashing(t *testing.T, data, step string) *testutil.Server {
	return testutil.StartServe(t, data, []string{app.CrashAtEnv + "=" + step}, "--allow-private-fetch")
}

// send posts a request whose answer the crash usually cuts off; it is not checked.
func send(base, method, path, key string, async bool, body any) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
	req.Header.Set("X-Api-Key", key)
	if async {
		req.Header.Set("Prefer", "respond-async")
	}
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// waitSettled waits until the account has no credit hold and no record in training.
func waitSettled(t *testing.T, st core.Store, acct uuid.UUID, what string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(90 * time.Second)
	for {
		holds, err := st.HeldReservations(ctx, uuid.Nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		open := 0
		for _, h := range holds {
			if h.AccountID == acct {
				open++
			}
		}
		models, err := st.ListCustomModels(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range models {
			if m.Status == core.StatusProcessing {
				open++
			}
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d holds or trainings still open after the restart", what, open)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ledgerBalance returns the account's balance after checking it equals its ledger's sum.
func ledgerBalance(t *testing.T, st core.Store, acct uuid.UUID) int64 {
	t.Helper()
	a, err := st.GetAccount(context.Background(), acct)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Ledger(context.Background(), acct, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range rows {
		sum += r.Delta
	}
	if sum != a.Balance {
		t.Fatalf("balance %d, ledger sums to %d", a.Balance, sum)
	}
	return a.Balance
}

// checkOwnedBlobs fails on any stored blob that no output row and no record owns.
func checkOwnedBlobs(t *testing.T, st *sqlite.Store, dir string) {
	t.Helper()
	ctx := context.Background()
	owned := map[string]bool{}
	rows, err := st.DB().QueryContext(ctx, `SELECT blob_key FROM outputs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		owned[k] = true
	}
	rows.Close()
	accounts, err := st.ListAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		models, err := st.ListCustomModels(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range models {
			for _, k := range core.RecordKeys(&m) {
				owned[k] = true
			}
		}
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if k := filepath.ToSlash(rel); !owned[k] && !strings.HasPrefix(filepath.Base(k), ".") {
			t.Errorf("blob %s has no owner", k)
		}
		return nil
	})
}
