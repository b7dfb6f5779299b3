// Package blobtest is the conformance suite every core.Blobs implementation must pass.
package blobtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/blob"
	"thumbforge/internal/core"
)

// Option adjusts the suite for one backend.
type Option func(*config)

type config struct {
	sleep func(time.Duration)
}

// WithSleep replaces time.Sleep in the expiry check; a store with an injected clock
// passes a function that advances that clock, so the check costs no real time.
func WithSleep(sleep func(time.Duration)) Option {
	return func(c *config) { c.sleep = sleep }
}

// Run checks store against the core.Blobs contract. fetch performs a plain GET of a link
// the store handed out (through whatever serves it: the app's file route or S3 itself).
// Keys live under a random prefix, so a shared bucket is safe.
func Run(t *testing.T, store core.Blobs, fetch func(url string) (*http.Response, error), opts ...Option) {
	t.Helper()
	cfg := config{sleep: time.Sleep}
	for _, o := range opts {
		o(&cfg)
	}
	s := &suite{store: store, fetch: fetch, cfg: cfg, prefix: "blobtest/" + randomHex(t, 8) + "/"}
	t.Run("PutGet", s.putGet)
	t.Run("Overwrite", s.overwrite)
	t.Run("Delete", s.delete)
	t.Run("Missing", s.missing)
	t.Run("BadKeys", s.badKeys)
	t.Run("ConcurrentOverwrite", s.concurrentOverwrite)
	t.Run("URLServesBytes", s.urlServes)
	t.Run("URLTampered", s.urlTampered)
	t.Run("URLExpired", s.urlExpired)
	t.Run("Large", s.large)
}

type suite struct {
	store  core.Blobs
	fetch  func(string) (*http.Response, error)
	cfg    config
	prefix string
}

func (s *suite) key(name string) string { return s.prefix + name }

func (s *suite) put(t *testing.T, key string, data []byte) {
	t.Helper()
	if err := s.store.Put(t.Context(), key, data, "image/jpeg"); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func (s *suite) mustGet(t *testing.T, key string, want []byte) {
	t.Helper()
	got, err := s.store.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %d bytes %q..., want %d bytes %q...", key, len(got), head(got), len(want), head(want))
	}
}

func (s *suite) mustMiss(t *testing.T, key string) {
	t.Helper()
	if got, err := s.store.Get(t.Context(), key); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("Get(%q) = %d bytes, %v; want core.ErrNotFound", key, len(got), err)
	}
}

func (s *suite) putGet(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a.jpg", []byte("\xff\xd8\xff hello jpeg")},
		{"nested/deeper/b.png", []byte("\x89PNG\r\n\x1a\n")},
		{"empty.bin", []byte{}},
		{"binary.bin", []byte{0, 1, 2, 0xfe, 0xff, '\n', '\r', 0}},
	} {
		k := s.key(tc.name)
		s.put(t, k, tc.data)
		s.mustGet(t, k, tc.data)
	}
	// A prefix of stored keys is not itself a blob.
	s.mustMiss(t, s.key("nested/deeper"))
}

func (s *suite) overwrite(t *testing.T) {
	k := s.key("over.jpg")
	s.put(t, k, []byte("the first, longer version"))
	s.put(t, k, []byte("second"))
	s.mustGet(t, k, []byte("second"))
}

func (s *suite) delete(t *testing.T) {
	k := s.key("del/x.jpg")
	s.put(t, k, []byte("x"))
	if err := s.store.Delete(t.Context(), k); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	s.mustMiss(t, k)
	if err := s.store.Delete(t.Context(), k); err != nil {
		t.Fatalf("Delete of a deleted key = %v, want nil", err)
	}
}

func (s *suite) missing(t *testing.T) {
	s.mustMiss(t, s.key("never-written.jpg"))
	s.mustMiss(t, s.key("no/such/dir/file.jpg"))
}

func (s *suite) badKeys(t *testing.T) {
	ctx := t.Context()
	for _, k := range []string{"", "../escape.jpg", s.prefix + "../x.jpg", "/abs.jpg", `a\b.jpg`,
		"sp ace.jpg", "q?x=1", "a//b", "trail/", ".hidden", "ü.jpg", "%2e%2e/x"} {
		check := func(op string, err error) {
			if !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("%s(%q) = %v, want blob.ErrInvalidKey", op, k, err)
			}
		}
		check("Put", s.store.Put(ctx, k, []byte("x"), "image/jpeg"))
		_, err := s.store.Get(ctx, k)
		check("Get", err)
		check("Delete", s.store.Delete(ctx, k))
		_, err = s.store.URL(ctx, k, time.Now().Add(time.Hour))
		check("URL", err)
	}
}

// concurrentOverwrite: readers see one whole version, never a torn or empty one.
func (s *suite) concurrentOverwrite(t *testing.T) {
	k := s.key("race.bin")
	versions := make([][]byte, 4)
	for i := range versions {
		versions[i] = bytes.Repeat([]byte{byte('a' + i)}, 64<<10)
	}
	s.put(t, k, versions[0])
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(versions))
	for _, v := range versions {
		wg.Go(func() {
			if err := s.store.Put(t.Context(), k, v, "application/octet-stream"); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			got, err := s.store.Get(t.Context(), k)
			if err != nil {
				errs <- err
				return
			}
			if !oneOf(got, versions) {
				errs <- fmt.Errorf("read a torn version: %d bytes %q...", len(got), head(got))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func oneOf(b []byte, versions [][]byte) bool {
	for _, v := range versions {
		if bytes.Equal(b, v) {
			return true
		}
	}
	return false
}

func (s *suite) urlServes(t *testing.T) {
	k := s.key("served.jpg")
	data := []byte("\xff\xd8\xff served bytes")
	s.put(t, k, data)
	u, err := s.store.URL(t.Context(), k, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	status, body, ctype := s.get(t, u)
	if status != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("GET %s = %d %q, want 200 %q", u, status, head(body), data)
	}
	if ctype != "image/jpeg" {
		t.Errorf("Content-Type = %q, want image/jpeg", ctype)
	}
}

func (s *suite) urlTampered(t *testing.T) {
	k, other := s.key("tamper.jpg"), s.key("tamper-other.jpg")
	s.put(t, k, []byte("mine"))
	s.put(t, other, []byte("someone else's"))
	u, err := s.store.URL(t.Context(), k, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatalf("URL %q does not parse: %v", u, err)
	}
	// The same signature must not open another object.
	swapped := *parsed
	swapped.Path = parsed.Path[:len(parsed.Path)-len("tamper.jpg")] + "tamper-other.jpg"
	swapped.RawPath = ""
	s.mustFail(t, "path changed", swapped.String())
	// Nor may a changed signature open this one.
	flipped := *parsed
	q := parsed.Query()
	n := 0
	for name, vals := range q {
		if len(vals) == 1 && len(vals[0]) == 64 && isHex(vals[0]) {
			v := []byte(vals[0])
			v[10] = "01"[boolInt(v[10] == '0')]
			q.Set(name, string(v))
			n++
		}
	}
	if n != 1 {
		t.Fatalf("URL %q has %d hex signatures, want 1", u, n)
	}
	flipped.RawQuery = q.Encode()
	s.mustFail(t, "signature changed", flipped.String())
}

func (s *suite) urlExpired(t *testing.T) {
	k := s.key("expiring.jpg")
	s.put(t, k, []byte("short-lived"))
	u, err := s.store.URL(t.Context(), k, time.Now().Add(time.Second))
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	s.cfg.sleep(2 * time.Second)
	s.mustFail(t, "expired", u)
}

func (s *suite) large(t *testing.T) {
	k := s.key("large.bin")
	data := make([]byte, 5<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	s.put(t, k, data)
	s.mustGet(t, k, data)
	u, err := s.store.URL(t.Context(), k, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatalf("URL: %v", err)
	}
	if status, body, _ := s.get(t, u); status != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("GET large = %d, %d bytes; want 200, %d bytes equal", status, len(body), len(data))
	}
}

func (s *suite) get(t *testing.T, u string) (status int, body []byte, contentType string) {
	t.Helper()
	resp, err := s.fetch(u)
	if err != nil {
		t.Fatalf("fetch %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", u, err)
	}
	return resp.StatusCode, body, resp.Header.Get("Content-Type")
}

// mustFail: a refused link answers a client error, never the object.
func (s *suite) mustFail(t *testing.T, what, u string) {
	t.Helper()
	status, body, _ := s.get(t, u)
	if status < 400 || status > 499 {
		t.Errorf("%s: GET %s = %d %q, want a 4xx refusal", what, u, status, head(body))
	}
}

func head(b []byte) []byte { return b[:min(len(b), 32)] }

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
