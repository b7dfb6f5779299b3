package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPanicBecomesInternalError(t *testing.T) {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), metrics: NewMetrics()}
	h := s.outer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom: /secret/path") }))
	for _, path := range []string{"/v2/thumbnail/text", "/v1/thumbnail"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", path, nil))
		if rec.Code != 500 {
			t.Fatalf("%s: status %d", path, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "boom") {
			t.Fatalf("panic text leaked: %s", rec.Body)
		}
		var b struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal(rec.Body.Bytes(), &b)
		if b.Error.Code != "INTERNAL_ERROR" {
			t.Fatalf("%s: %s", path, rec.Body)
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Fatal("no request id")
		}
	}
}
