package blob_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"thumbforge/internal/blob"
	"thumbforge/internal/blob/blobtest"
)

// fakeClock runs at wall-clock speed plus an offset the test moves forward, so links
// made from time.Now() expire when the test says, without sleeping.
type fakeClock struct{ offset atomic.Int64 }

func (c *fakeClock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *fakeClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

func newTestSecret() []byte { return bytes.Repeat([]byte("k"), 32) }

// newFileServer starts a file store behind the app's route on an httptest server.
func newFileServer(t *testing.T, now func() time.Time) (*blob.FileStore, *httptest.Server) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	store, err := blob.NewFileStore(blob.FileConfig{
		Dir: t.TempDir(), PublicURL: "http://" + srv.Listener.Addr().String(), Secret: newTestSecret(), Now: now,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /files/{key...}", store.ServeFiles())
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return store, srv
}

func TestFileStoreConformance(t *testing.T) {
	clock := &fakeClock{}
	store, srv := newFileServer(t, clock.Now)
	blobtest.Run(t, store, srv.Client().Get, blobtest.WithSleep(clock.Advance))
}

func TestServeFiles(t *testing.T) {
	clock := &fakeClock{}
	store, srv := newFileServer(t, clock.Now)
	ctx := t.Context()
	if err := store.Put(ctx, "out/a.png", []byte("png bytes"), "image/png"); err != nil {
		t.Fatal(err)
	}
	expires := clock.Now().Add(90 * time.Second).Truncate(time.Second)
	good, err := store.URL(ctx, "out/a.png", expires)
	if err != nil {
		t.Fatal(err)
	}
	missing, _ := store.URL(ctx, "out/none.png", expires)
	dir, _ := store.URL(ctx, "out", expires)
	stale, _ := store.URL(ctx, "out/a.png", clock.Now().Add(-time.Second))
	u, _ := url.Parse(good)
	q := u.Query()
	noSig := *u
	noSig.RawQuery = url.Values{"expires": q["expires"]}.Encode()
	later := *u
	later.RawQuery = url.Values{"expires": {"9999999999"}, "sig": q["sig"]}.Encode()
	badSig := *u
	badSig.RawQuery = url.Values{"expires": q["expires"], "sig": {strings.Repeat("0", 64)}}.Encode()
	junk := *u
	junk.RawQuery = url.Values{"expires": {"soon"}, "sig": q["sig"]}.Encode()

	tests := []struct {
		name   string
		url    string
		status int
		code   string
	}{
		{"valid", good, http.StatusOK, ""},
		{"missing file", missing, http.StatusNotFound, "NOT_FOUND"},
		{"directory", dir, http.StatusNotFound, "NOT_FOUND"},
		{"expired", stale, http.StatusGone, "EXPIRED"},
		{"no signature", noSig.String(), http.StatusForbidden, "FORBIDDEN"},
		{"expiry moved", later.String(), http.StatusForbidden, "FORBIDDEN"},
		{"wrong signature", badSig.String(), http.StatusForbidden, "FORBIDDEN"},
		{"malformed expiry", junk.String(), http.StatusForbidden, "FORBIDDEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := srv.Client().Get(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.code == "" {
				return
			}
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != tt.code || e.Error.Message == "" {
				t.Fatalf("body %s (%v), want error code %s with a message", body, err, tt.code)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}

	t.Run("headers", func(t *testing.T) {
		resp, err := srv.Client().Get(good)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "png bytes" {
			t.Fatalf("body %q", body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "image/png" {
			t.Errorf("Content-Type %q, want image/png", ct)
		}
		// The clock keeps running between URL and GET, so allow a second of slack.
		cc := resp.Header.Get("Cache-Control")
		if cc != "private, max-age=89" && cc != "private, max-age=88" {
			t.Errorf("Cache-Control %q, want private, max-age=89 (or 88)", cc)
		}
	})
}

func TestServeFilesFrozenClock(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	store, srv := newFileServer(t, func() time.Time { return now })
	if err := store.Put(t.Context(), "x.jpg", []byte("jpeg"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	u, _ := store.URL(t.Context(), "x.jpg", now.Add(24*time.Hour))
	resp, err := srv.Client().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Cache-Control"); got != "private, max-age=86400" {
		t.Errorf("Cache-Control %q", got)
	}
	if got := resp.Header.Get("Content-Type"); got != "image/jpeg" {
		t.Errorf("Content-Type %q", got)
	}
	if !strings.HasPrefix(u, srv.URL+"/files/x.jpg?expires=") {
		t.Errorf("URL %q does not have the documented shape", u)
	}
}

// TestServeFilesPrefixMount: mounted on a prefix the handler reads the key from the path,
// and a path that escapes the store never verifies.
func TestServeFilesPrefixMount(t *testing.T) {
	store, err := blob.NewFileStore(blob.FileConfig{Dir: t.TempDir(), PublicURL: "http://x", Secret: newTestSecret()})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Put(t.Context(), "k.jpg", []byte("jpeg"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	link, _ := store.URL(t.Context(), "k.jpg", time.Now().Add(time.Hour))
	u, _ := url.Parse(link)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/files/k.jpg", http.StatusOK},
		{"/files/../k.jpg", http.StatusForbidden},
		{"/files//k.jpg", http.StatusForbidden},
	} {
		req := httptest.NewRequest(http.MethodGet, "http://x/?"+u.RawQuery, nil)
		req.URL.Path = tc.path
		rec := httptest.NewRecorder()
		store.ServeFiles().ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("GET %s = %d %s, want %d", tc.path, rec.Code, rec.Body, tc.status)
		}
	}
	rec := httptest.NewRecorder()
	store.ServeFiles().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/files/k.jpg?"+u.RawQuery, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d, want 405", rec.Code)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	store, err := blob.NewFileStore(blob.FileConfig{
		Dir: t.TempDir(), PublicURL: "http://127.0.0.1:8080/", Secret: newTestSecret(),
		Now: func() time.Time { return now },
	})
	if err != nil {
		t.Fatal(err)
	}
	link, err := store.URL(t.Context(), "a/b.jpg", now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if u.Path != "/files/a/b.jpg" {
		t.Fatalf("path %q", u.Path)
	}
	exp, sig := u.Query().Get("expires"), u.Query().Get("sig")
	if exp != "1800000060" || len(sig) != 64 {
		t.Fatalf("expires=%q sig=%q", exp, sig)
	}
	past, _ := store.URL(t.Context(), "a/b.jpg", now)
	pu, _ := url.Parse(past)
	tests := []struct {
		name, key, exp, sig string
		want                error
	}{
		{"valid", "a/b.jpg", exp, sig, nil},
		{"valid upper-case hex", "a/b.jpg", exp, strings.ToUpper(sig), nil},
		{"other key", "a/c.jpg", exp, sig, blob.ErrBadSignature},
		{"other expiry", "a/b.jpg", "1800000061", sig, blob.ErrBadSignature},
		{"truncated sig", "a/b.jpg", exp, sig[:62], blob.ErrBadSignature},
		{"not hex", "a/b.jpg", exp, strings.Repeat("z", 64), blob.ErrBadSignature},
		{"empty", "a/b.jpg", "", "", blob.ErrBadSignature},
		{"expiry not a number", "a/b.jpg", "1e9", sig, blob.ErrBadSignature},
		{"expires now", "a/b.jpg", pu.Query().Get("expires"), pu.Query().Get("sig"), blob.ErrExpired},
	}
	for _, tt := range tests {
		err := store.Verify(tt.key, tt.exp, tt.sig)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: Verify = %v, want %v", tt.name, err, tt.want)
		}
	}
	// A store with another secret refuses the link.
	other, _ := blob.NewFileStore(blob.FileConfig{
		Dir: t.TempDir(), PublicURL: "http://x", Secret: bytes.Repeat([]byte("o"), 32),
		Now: func() time.Time { return now },
	})
	if err := other.Verify("a/b.jpg", exp, sig); !errors.Is(err, blob.ErrBadSignature) {
		t.Errorf("other secret: %v", err)
	}
}

func TestFileConfigValidate(t *testing.T) {
	ok := blob.FileConfig{Dir: "d", PublicURL: "https://thumbs.example.com/base", Secret: newTestSecret()}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for name, mut := range map[string]func(*blob.FileConfig){
		"no dir":       func(c *blob.FileConfig) { c.Dir = "" },
		"relative url": func(c *blob.FileConfig) { c.PublicURL = "/files" },
		"ftp url":      func(c *blob.FileConfig) { c.PublicURL = "ftp://x" },
		"query in url": func(c *blob.FileConfig) { c.PublicURL = "http://x/?a=b" },
		"short secret": func(c *blob.FileConfig) { c.Secret = []byte("short") },
	} {
		c := ok
		mut(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate = nil", name)
		}
		if _, err := blob.NewFileStore(c); err == nil {
			t.Errorf("%s: NewFileStore accepted it", name)
		}
	}
}

func TestFileStoreLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	store, err := blob.NewFileStore(blob.FileConfig{Dir: dir, PublicURL: "http://x", Secret: newTestSecret()})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := store.Put(t.Context(), "a/b.jpg", []byte("data"), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if len(names) != 1 || names[0] != "a/b.jpg" {
		t.Fatalf("files %v, want only a/b.jpg", names)
	}
}

func TestFileStorePingFails(t *testing.T) {
	// Tests may run as root, who writes through directory permissions: remove the dir.
	dir := filepath.Join(t.TempDir(), "data")
	store, err := blob.NewFileStore(blob.FileConfig{Dir: dir, PublicURL: "http://x", Secret: newTestSecret()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := store.Ping(t.Context()); err == nil {
		t.Fatal("Ping on a removed dir = nil")
	}
}

func TestLoadOrCreateSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := blob.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 {
		t.Fatalf("secret has %d bytes", len(first))
	}
	st, err := os.Stat(filepath.Join(dir, blob.SecretFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	again, err := blob.LoadOrCreateSecret(dir)
	if err != nil || !bytes.Equal(first, again) {
		t.Fatalf("second load = %x, %v; want the same secret", again, err)
	}
	other, _ := blob.LoadOrCreateSecret(t.TempDir())
	if bytes.Equal(first, other) {
		t.Fatal("two data dirs got the same secret")
	}
	if err := os.WriteFile(filepath.Join(dir, blob.SecretFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := blob.LoadOrCreateSecret(dir); err == nil {
		t.Fatal("a truncated secret file was accepted")
	}
}
