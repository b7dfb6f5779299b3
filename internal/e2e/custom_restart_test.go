package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"thumbforge/internal/app"

	"thumbforge/internal/testutil"
)

// process is a running `thumbforge serve`.
type process struct {
	cmd  *exec.Cmd
	url  string
	key  string
	done chan struct{}
}

// serveProcess starts `thumbforge serve --dev` on data with every training stage slowed.
func serveProcess(t *testing.T, data string) *process {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &process{url: "http://" + addr, done: make(chan struct{})}
	p.cmd = exec.Command(testutil.Thumbforge(t), "serve", "--dev", "--data", data, "--addr", addr)
	p.cmd.Env = append(os.Environ(), app.TrainingDelayEnv+"=700ms")
	p.cmd.Stderr = io.Discard
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no dev key printed: %v", err)
	}
	p.key = strings.TrimSpace(strings.TrimPrefix(line, "dev API key:"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(p.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not become ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *process) call(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.url+path, rd)
	req.Header.Set("X-Api-Key", p.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
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
	status, body := p.call(t, "POST", "/v2/custom/persona", map[string]any{"name": "Survivor", "image_base64s": []string{face, face, face}})
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id, _ := body["id"].(string)
	// Wait until the job has started (progress moved) but not finished, then SIGKILL.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, rec := p.call(t, "GET", "/v2/custom/"+id, nil)
		if prog, _ := rec["progress"].(float64); prog > 0 && rec["status"] == "processing" {
			break
		}
		if rec["status"] != "processing" || time.Now().After(deadline) {
			t.Fatalf("never caught the job mid-training: %v", rec)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done

	p2 := serveProcess(t, data)
	if _, rec := p2.call(t, "GET", "/v2/custom/"+id, nil); rec["status"] != "processing" {
		t.Fatalf("after the kill the record is %v, want still processing", rec)
	}
	deadline = time.Now().Add(60 * time.Second)
	var rec map[string]any
	for {
		_, rec = p2.call(t, "GET", "/v1/persona?id="+id, nil)
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
	_, v2 := p2.call(t, "GET", "/v2/custom/"+id, nil)
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
