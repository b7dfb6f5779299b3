package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"net/http/httptest"
	"thumbforge/internal/app"
	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/testutil"
)

// benchEnv starts the app with plenty of credits and no practical in-flight cap.
func benchEnv(b *testing.B) *env {
	e := start(b, 1<<40)
	e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 10000; return nil })
	return e
}

// benchPost sends body to path from parallel clients over real sockets.
func benchPost(b *testing.B, e *env, path string, body any, want int) {
	benchPostKeyed(b, e, path, body, want, nil)
}

// benchPostKeyed is benchPost with an Idempotency-Key per request from key (none when nil).
func benchPostKeyed(b *testing.B, e *env, path string, body any, want int, key func() string) {
	benchPostWith(b, e, path, body, want, func(req *http.Request) {
		if key != nil {
			req.Header.Set("Idempotency-Key", key())
		}
	})
}

// benchPostWith is benchPost with headers set by header on every request.
func benchPostWith(b *testing.B, e *env, path string, body any, want int, header func(*http.Request)) {
	data, _ := json.Marshal(body)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", e.URL+path, bytes.NewReader(data))
			req.Header.Set("X-Api-Key", e.Key)
			header(req)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				b.Errorf("status %d, want %d", resp.StatusCode, want)
				return
			}
		}
	})
}

// BenchmarkValidationError measures the request path up to validation: request id, auth
// (a store read), in-flight slot, body decoding and the error body.
func BenchmarkValidationError(b *testing.B) {
	benchPost(b, benchEnv(b), "/v2/thumbnail/text", map[string]any{"model": "mdl_9", "format": "4:3"}, 400)
}

// BenchmarkTextThumbnail measures the whole paid path: auth, validation, reserve, render,
// JPEG encode, blob write, output record, charge.
func BenchmarkTextThumbnail(b *testing.B) {
	benchPost(b, benchEnv(b), "/v2/thumbnail/text", map[string]any{"prompt": "Ten budget travel tips for Japan", "model": "mdl_3", "format": "16:9"}, 200)
}

// BenchmarkTitles measures v2 titles with the builtin generator.
func BenchmarkTitles(b *testing.B) {
	benchPost(b, benchEnv(b), "/v2/title/text", map[string]any{"prompt": "I tested 5 budget mechanical keyboards under $50 for a month"}, 200)
}

// BenchmarkTitlesIdempotent is BenchmarkTitles with a fresh Idempotency-Key on every
// request: what claiming the key and keeping the answer add (two writes).
func BenchmarkTitlesIdempotent(b *testing.B) {
	var n atomic.Int64
	benchPostKeyed(b, benchEnv(b), "/v2/title/text", map[string]any{"prompt": "I tested 5 budget mechanical keyboards under $50 for a month"}, 200,
		func() string { return fmt.Sprint("k", n.Add(1)) })
}

// BenchmarkTitlesAsync is BenchmarkTitles with Prefer: respond-async: the 202 answer
// (validation, the request row and its hold in one transaction, the job's insert), while
// the queue's workers run the accepted requests beside it. The timer stops once every
// accepted request has ended.
func BenchmarkTitlesAsync(b *testing.B) {
	e := benchEnv(b)
	benchPostWith(b, e, "/v2/title/text", map[string]any{"prompt": "I tested 5 budget mechanical keyboards under $50 for a month"}, 202,
		func(req *http.Request) { req.Header.Set("Prefer", "respond-async") })
	for {
		open, err := e.App.Store.OpenAsyncRequests(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(open) == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkIdempotentReplay repeats one keyed request: every answer after the first is the
// kept one (a claim that finds it, no work).
func BenchmarkIdempotentReplay(b *testing.B) {
	e := benchEnv(b)
	body := map[string]any{"prompt": "I tested 5 budget mechanical keyboards under $50 for a month"}
	if r := e.keyed("/v2/title/text", "same", body); r.Status != 200 {
		b.Fatalf("first: %d %s", r.Status, r.Raw)
	}
	benchPostKeyed(b, e, "/v2/title/text", body, 200, func() string { return "same" })
}

// BenchmarkOpenAIThumbnail is a text thumbnail through the openai engine against an
// in-process fake answering at once with a photo-like 1536x1024 picture: the CPU thumbforge
// adds to a generation (the fake's share is its answer's base64 and JSON).
func BenchmarkOpenAIThumbnail(b *testing.B) {
	answer := openaifake.Photo(enginetest.Photo(b, "rocket.jpg"), 1536, 1024)
	f, err := openaifake.New(openaifake.Config{Answer: answer})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(f)
	b.Cleanup(srv.Close)
	e := start(b, 1<<40, func(c *app.Config) {
		c.Engine = engines.Config{Kind: "openai", URLs: []string{srv.URL + "/v1"}, Concurrency: 8}
	})
	e.App.Store.UpdateAccount(context.Background(), e.Account, func(a *core.Account) error { a.Concurrency = 10000; return nil })
	cpu := testutil.CPUTime()
	benchPost(b, e, "/v2/thumbnail/text", map[string]any{"prompt": "Ten budget travel tips for Japan", "model": "mdl_3", "format": "16:9"}, 200)
	testutil.ReportCPU(b, cpu)
}
