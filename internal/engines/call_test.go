package engines

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestCallMapsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte("picture"))
		case "/busy":
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/gateway":
			w.WriteHeader(http.StatusBadGateway)
		case "/refused":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte("nope"))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("boom"))
		}
	}))
	defer srv.Close()
	refused := func(status int, body []byte) bool { return string(body) == "nope" }
	call := func(ctx context.Context, p string) ([]byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+p, nil)
		return Call(srv.Client(), req, 1<<20, refused)
	}
	if data, err := call(context.Background(), "/ok"); err != nil || string(data) != "picture" {
		t.Fatalf("ok: %q %v", data, err)
	}
	for p, want := range map[string]Class{"/busy": ClassBusy, "/gateway": ClassUnavailable, "/refused": ClassRefused, "/fail": ClassFailed} {
		_, err := call(context.Background(), p)
		var e *Error
		if !errors.As(err, &e) || e.Class != want {
			t.Errorf("%s: %v, want %s", p, err, want)
			continue
		}
		if p == "/busy" && e.RetryAfter != 2*time.Second {
			t.Errorf("busy: Retry-After %v", e.RetryAfter)
		}
		if p == "/fail" && e.Detail != "GET /fail: boom" {
			t.Errorf("detail %q", e.Detail)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := call(ctx, "/ok"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
	var e *Error
	if _, err := Call(http.DefaultClient, req, 1, nil); !errors.As(err, &e) || e.Class != ClassUnavailable {
		t.Errorf("refused connection: %v", err)
	}
}
