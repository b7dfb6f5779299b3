package blob_test

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/blob"
	"thumbforge/internal/blob/blobtest"
	"thumbforge/internal/core"
	"thumbforge/internal/testutil"
)

const (
	s3TestBucket = "thumbs"
	s3TestAccess = "thumbforgetest"
	s3TestSecret = "thumbforge-test-secret-0123456789"
)

func s3URL(s3 *testutil.S3, bucket, secret string) string { return s3.BlobsURL(bucket, secret) }

func TestS3Store(t *testing.T) {
	start := time.Now()
	s3 := testutil.StartS3(t, s3TestAccess, s3TestSecret, s3TestBucket)
	t.Logf("versitygw ready in %v", time.Since(start).Round(time.Millisecond))
	store, err := blob.NewS3Store(t.Context(), s3URL(s3, s3TestBucket, s3TestSecret))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Ping", func(t *testing.T) {
		if err := store.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
		missing, _ := blob.NewS3Store(t.Context(), s3URL(s3, "no-such-bucket", s3TestSecret))
		if err := missing.Ping(t.Context()); err == nil {
			t.Fatal("Ping of a missing bucket = nil")
		}
		if _, err := missing.Get(t.Context(), "a.jpg"); err == nil || errors.Is(err, core.ErrNotFound) {
			t.Fatalf("Get from a missing bucket = %v, want an error that is not ErrNotFound", err)
		}
	})
	t.Run("WrongSecret", func(t *testing.T) {
		bad, _ := blob.NewS3Store(t.Context(), s3URL(s3, s3TestBucket, "not-the-secret"))
		if err := bad.Put(t.Context(), "x.jpg", []byte("x"), "image/jpeg"); err == nil {
			t.Fatal("Put with a wrong secret succeeded: the server is not checking signatures")
		}
	})
	t.Run("Conformance", func(t *testing.T) {
		began := time.Now()
		blobtest.Run(t, store, http.Get)
		t.Logf("conformance suite against versitygw took %v", time.Since(began).Round(time.Millisecond))
	})
	t.Run("PresignExpiryClamp", func(t *testing.T) {
		u, err := store.URL(t.Context(), "a.jpg", time.Now().Add(30*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		pu, _ := url.Parse(u)
		if got := pu.Query().Get("X-Amz-Expires"); got != strconv.Itoa(7*24*3600) {
			t.Errorf("X-Amz-Expires = %s, want 604800 (7 days)", got)
		}
		u, _ = store.URL(t.Context(), "a.jpg", time.Now().Add(time.Hour))
		pu, _ = url.Parse(u)
		if got := pu.Query().Get("X-Amz-Expires"); got != "3600" {
			t.Errorf("X-Amz-Expires = %s, want 3600", got)
		}
		if !strings.HasPrefix(u, s3.Endpoint+"/"+s3TestBucket+"/a.jpg?") {
			t.Errorf("URL %s is not path-style on the endpoint", u)
		}
	})
}

func TestNewS3StoreURL(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "envkey")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "")
	ok := []struct{ raw, wantPrefix string }{
		{"s3://b?endpoint=http://127.0.0.1:7070&use_path_style=true", "http://127.0.0.1:7070/b/k.jpg?"},
		{"s3://b?endpoint=127.0.0.1:7070&use_path_style=true&disable_https=true", "http://127.0.0.1:7070/b/k.jpg?"},
		{"s3://b?endpoint=https://minio.local/base/&use_path_style=1", "https://minio.local/base/b/k.jpg?"},
		{"s3://b?region=eu-west-1", "https://b.s3.eu-west-1.amazonaws.com/k.jpg?"},
		{"s3://b", "https://b.s3.us-east-1.amazonaws.com/k.jpg?"},
		{"s3://b?access_key=q&secret_key=s", "https://b.s3.us-east-1.amazonaws.com/k.jpg?"},
	}
	for _, tt := range ok {
		s, err := blob.NewS3Store(t.Context(), tt.raw)
		if err != nil {
			t.Errorf("NewS3Store(%q): %v", tt.raw, err)
			continue
		}
		u, err := s.URL(t.Context(), "k.jpg", time.Now().Add(time.Minute))
		if err != nil || !strings.HasPrefix(u, tt.wantPrefix) {
			t.Errorf("NewS3Store(%q).URL = %q, %v; want prefix %q", tt.raw, u, err, tt.wantPrefix)
		}
		if !strings.Contains(u, "X-Amz-Credential=") || !strings.Contains(u, "X-Amz-Signature=") {
			t.Errorf("URL %q is not presigned", u)
		}
	}
	bad := []string{
		"http://b", "s3://", "s3://b/path", "s3://b?endpoint=ftp://x", "s3://b?use_path_style=maybe",
		"s3://b?disable_https=2x", "s3://b?endpont=http://x", "%zz",
	}
	for _, raw := range bad {
		if _, err := blob.NewS3Store(t.Context(), raw); err == nil {
			t.Errorf("NewS3Store(%q) accepted it", raw)
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	if _, err := blob.NewS3Store(t.Context(), "s3://b"); err == nil {
		t.Error("NewS3Store without credentials accepted")
	}
	s, _ := blob.NewS3Store(t.Context(), "s3://b?access_key=a&secret_key=verysecret&bogus=1")
	if s != nil {
		t.Error("unknown parameter accepted")
	}
	_, err := blob.NewS3Store(t.Context(), "s3://b/x?access_key=a&secret_key=verysecret")
	if err == nil || strings.Contains(err.Error(), "verysecret") {
		t.Errorf("error %v leaks the secret", err)
	}
}
