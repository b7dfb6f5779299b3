package cluster_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"thumbforge/internal/testutil"
)

// The S3 test server's credentials and bucket; loopback only.
const (
	bucket   = "thumbs"
	s3Access = "thumbforgecluster"
	s3Secret = "thumbforge-cluster-secret-0123456789"
	// dsnEnv names the PostgreSQL server the test may create a database on.
	dsnEnv = "THUMBFORGE_TEST_POSTGRES"
)

// startS3 runs versitygw on loopback with a posix backend and returns the s3:// URL of
// the bucket and the bucket's directory (each object is a file under it).
func startS3(t *testing.T) (blobsURL, bucketDir string) {
	t.Helper()
	s3 := testutil.StartS3(t, s3Access, s3Secret, bucket)
	return s3.BlobsURL(bucket, s3Secret), filepath.Join(s3.Root, bucket)
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
