package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/app"

	"thumbforge/internal/testutil"
)

// serveProcess starts `thumbforge serve --dev` on data with every training stage slowed.
func serveProcess(t *testing.T, data string) *testutil.Server {
	return testutil.StartServe(t, data, []string{app.TrainingDelayEnv + "=700ms"})
}

// TestTrainingSurvivesSIGKILL kills a real server in the middle of training a persona and
// checks that the restarted server finishes the job, charging it once.
func TestTrainingSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	data := t.TempDir()
	p := serveProcess(t, data)
	face := photoDataURL(t, "astronaut.jpg")
	status, body := p.Call(t, "POST", "/v2/custom/persona", map[string]any{"name": "Survivor", "image_base64s": []string{face, face, face}})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id, _ := body["id"].(string)
	// Wait until the job has started (progress moved) but not finished, then SIGKILL.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, rec := p.Call(t, "GET", "/v2/custom/"+id, nil)
		if prog, _ := rec["progress"].(float64); prog > 0 && rec["status"] == "processing" {
			break
		}
		if rec["status"] != "processing" || time.Now().After(deadline) {
			t.Fatalf("never caught the job mid-training: %v", rec)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.Done

	p2 := serveProcess(t, data)
	if _, rec := p2.Call(t, "GET", "/v2/custom/"+id, nil); rec["status"] != "processing" {
		t.Fatalf("after the kill the record is %v, want still processing", rec)
	}
	deadline = time.Now().Add(60 * time.Second)
	var rec map[string]any
	for {
		_, rec = p2.Call(t, "GET", "/v1/persona?id="+id, nil)
		if rec["status"] == "Ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("training never finished after restart: %v", rec)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rec["progress"].(float64) != 100 || rec["temp_portrait_url"] == nil {
		t.Fatalf("ready record %v", rec)
	}
	// Charged exactly once: the dev account's balance is its grant minus one price.
	_, v2 := p2.Call(t, "GET", "/v2/custom/"+id, nil)
	if v2["status"] != "completed" {
		t.Fatalf("v2 view %v", v2)
	}
	out, err := exec.Command(testutil.Thumbforge(t), "accounts", "list", "--json", "--data", data).Output()
	if err != nil {
		t.Fatalf("accounts list: %v", err)
	}
	if want := fmt.Sprintf(`"balance":%d`, app.DevCredits-trainingPrice); !strings.Contains(strings.ReplaceAll(string(out), " ", ""), want) {
		t.Fatalf("accounts: %s, want %s", out, want)
	}
}
