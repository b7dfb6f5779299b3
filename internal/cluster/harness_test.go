package cluster_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The S3 test server's credentials and bucket; loopback only.
const (
	bucket   = "thumbs"
	s3Access = "thumbforgecluster"
	s3Secret = "thumbforge-cluster-secret-0123456789"
	// dsnEnv names the PostgreSQL server the test may create a database on.
	dsnEnv = "THUMBFORGE_TEST_POSTGRES"
)

// lockedBuffer collects a child process's output; the test reads it on failure.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// buildBinary builds cmd/thumbforge once into the test's temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "thumbforge")
	cmd := exec.Command("go", "build", "-o", bin, "thumbforge/cmd/thumbforge")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
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

// startS3 runs versitygw on loopback with a posix backend and returns the s3:// URL of
// the bucket and the bucket's directory (each object is a file under it).
func startS3(t *testing.T) (blobsURL, bucketDir string) {
	t.Helper()
	bin := findVersitygw()
	if bin == "" {
		t.Skip("versitygw not found: run scripts/install-versitygw.sh, or set THUMBFORGE_VERSITYGW to its path")
	}
	root := t.TempDir()
	bucketDir = filepath.Join(root, bucket)
	if err := os.Mkdir(bucketDir, 0o755); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	out := &lockedBuffer{}
	cmd := exec.Command(bin, "--port", addr, "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s3Access, "ROOT_SECRET_KEY="+s3Secret)
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
	endpoint := "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; {
		// Any HTTP answer (403 to an unsigned request) means it is serving.
		if resp, err := http.Get(endpoint + "/"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited early: %v\n%s", err, out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s within 15s", endpoint)
		}
	}
	q := url.Values{
		"endpoint": {endpoint}, "region": {"us-east-1"}, "use_path_style": {"true"},
		"disable_https": {"true"}, "access_key": {s3Access}, "secret_key": {s3Secret},
	}
	return "s3://" + bucket + "?" + q.Encode(), bucketDir
}

// freshDatabase creates a database for this run on the server named by
// THUMBFORGE_TEST_POSTGRES, drops it when the test ends, and returns its DSN. A whole
// database rather than a schema: the job queue's tables and notifications then need no
// search_path.
func freshDatabase(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skipf("cluster test skipped: set %s, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable", dsnEnv)
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("%s must be a postgres:// URL", dsnEnv)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := "tf_cluster_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// FORCE ends the connections of replicas killed without closing them.
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// admin runs a thumbforge admin command against the database and decodes its --json
// output into out (when not nil).
func (c *cluster) admin(out any, args ...string) {
	c.t.Helper()
	args = append(args, "--database", c.dsn, "--json")
	cmd := exec.Command(c.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("thumbforge %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("thumbforge %s printed %q: %v", strings.Join(args, " "), b, err)
		}
	}
}

// account creates an account with credits, a concurrency limit and a key, with the
// admin commands, and returns the account id and the key.
func (c *cluster) account(name string, credits int64, concurrency int) (id, key string) {
	c.t.Helper()
	var acct struct {
		ID string `json:"id"`
	}
	c.admin(&acct, "accounts", "create", "--name", name, "--credits", fmt.Sprint(credits))
	c.admin(nil, "accounts", "concurrency", acct.ID, fmt.Sprint(concurrency))
	var k struct {
		Key string `json:"key"`
	}
	c.admin(&k, "keys", "create", "--account", acct.ID)
	if !strings.HasPrefix(k.Key, "mdl_") {
		c.t.Fatalf("keys create printed key %q", k.Key)
	}
	return acct.ID, k.Key
}

// balance reads an account's balance with `thumbforge credits show`.
func (c *cluster) balance(account string) int64 {
	c.t.Helper()
	var v struct {
		Balance int64 `json:"balance"`
	}
	c.admin(&v, "credits", "show", "--account", account)
	return v.Balance
}
