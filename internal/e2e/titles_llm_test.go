package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
)

// chatServer answers OpenAI-style chat completions with content, after delay.
func chatServer(t *testing.T, delay time.Duration, content string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "bad request", 400)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func withTitlesLLM(url string, timeout time.Duration) option {
	return func(c *app.Config) {
		c.TitlesURL, c.TitlesModel, c.TitlesKey = url+"/v1", "test-model", "sk-test"
		c.Timeouts.Title = timeout
	}
}

func TestTitlesFromLanguageModel(t *testing.T) {
	answer := `{"titles":["Five Keyboards, One Winner","Cheap Keyboards Tested","I Typed on Budget Boards","Budget Keyboards Ranked","The $50 Keyboard Truth"],"reasoning":"Review of budget keyboards."}`
	e := start(t, 100, withTitlesLLM(chatServer(t, 0, answer).URL, 5*time.Second))
	r := e.post("/v2/title/text", map[string]any{"prompt": "I tested 5 budget mechanical keyboards"})
	if r.Status != 200 || !strings.Contains(string(r.Raw), "Five Keyboards, One Winner") {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100-8 {
		t.Fatal("not charged once")
	}
}

func TestTitlesModelUnusableFallsBack(t *testing.T) {
	e := start(t, 100, withTitlesLLM(chatServer(t, 0, "not json at all").URL, 5*time.Second))
	r := e.post("/v2/title/text", map[string]any{"prompt": "How to repot a monstera"})
	if r.Status != 200 || !strings.Contains(r.str("reasoning"), "builtin") {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
}

func TestTitlesTimeoutChargesNothing(t *testing.T) {
	e := start(t, 100, withTitlesLLM(chatServer(t, 3*time.Second, "{}").URL, 300*time.Millisecond))
	r := e.post("/v2/title/text", map[string]any{"prompt": "How to repot a monstera"})
	if r.Status != 504 || r.code() != "TITLE_TIMEOUT" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if e.balance(e.Account) != 100 {
		t.Fatal("charged for a timeout")
	}
}
