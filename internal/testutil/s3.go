package testutil

import (
	"bytes"
	"go/build"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// S3 is a real S3-compatible server (versitygw, posix backend) on loopback.
type S3 struct {
	// Endpoint is the server's http:// address.
	Endpoint string
	// Root holds one directory per bucket; each object is a file under its bucket's.
	Root           string
	Access, Secret string
}

// findVersitygw looks where scripts/install-versitygw.sh puts the server.
func findVersitygw() string {
	if p := os.Getenv("THUMBFORGE_VERSITYGW"); p != "" {
		return p
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	for _, gopath := range filepath.SplitList(build.Default.GOPATH) {
		p := filepath.Join(gopath, "bin", "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// StartS3 runs versitygw with the given buckets for the test and waits until it answers.
// It skips the test, saying how to install the server, when it is not installed.
func StartS3(t testing.TB, access, secret string, buckets ...string) *S3 {
	t.Helper()
	bin := findVersitygw()
	if bin == "" {
		t.Skip("versitygw not found: run scripts/install-versitygw.sh, or set THUMBFORGE_VERSITYGW to its path")
	}
	s := &S3{Root: t.TempDir(), Access: access, Secret: secret}
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(s.Root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := FreeAddr(t)
	out := &SyncBuffer{}
	cmd := exec.Command(bin, "--port", addr, "posix", s.Root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+access, "ROOT_SECRET_KEY="+secret)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("versitygw output:\n%s", out)
		}
	})
	s.Endpoint = "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; {
		// Any HTTP answer (403 to an unsigned request) means it is serving.
		if resp, err := http.Get(s.Endpoint + "/"); err == nil {
			resp.Body.Close()
			return s
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited early: %v\n%s", err, out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s within 15s:\n%s", s.Endpoint, out)
		}
	}
}

// BlobsURL is the s3:// URL of a bucket on this server, as --blobs takes it.
func (s *S3) BlobsURL(bucket, secret string) string {
	q := url.Values{
		"endpoint": {s.Endpoint}, "region": {"us-east-1"}, "use_path_style": {"true"},
		"disable_https": {"true"}, "access_key": {s.Access}, "secret_key": {secret},
	}
	return "s3://" + bucket + "?" + q.Encode()
}

// SyncBuffer collects a child process's output; safe to read while the process writes.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *SyncBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *SyncBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
