package titles

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"thumbforge/internal/core"
)

// fakeModel is an in-process chat completions server: it answers with the scripted
// replies in turn (the last one repeats) and records every request body.
type fakeModel struct {
	mu      sync.Mutex
	replies []func(w http.ResponseWriter, r *http.Request)
	bodies  [][]byte
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "wrong route "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	i := len(f.bodies)
	f.bodies = append(f.bodies, body)
	reply := f.replies[min(i, len(f.replies)-1)]
	f.mu.Unlock()
	reply(w, r)
}

func (f *fakeModel) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// answer replies with a chat completion whose message content is content.
func answer(content string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}},
		})
	}
}

func goodJSON(n int) string {
	titles := make([]string, n)
	for i := range titles {
		titles[i] = fmt.Sprintf("Model Title Number %d", i+1)
	}
	b, _ := json.Marshal(map[string]any{"titles": titles, "reasoning": "A how-to about bread."})
	return string(b)
}

func newLLM(t *testing.T, f *fakeModel) *LLM {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return &LLM{BaseURL: srv.URL + "/v1/", Model: "test-model", APIKey: "sk-test",
		HTTPClient: srv.Client(), Fallback: &Builtin{}}
}

func TestLLMGoodAnswer(t *testing.T) {
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){answer(goodJSON(7))}}
	res, err := newLLM(t, f).Titles(context.Background(), core.TitleRequest{Prompt: "How to bake bread", Count: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Titles) != 5 || res.Titles[0] != "Model Title Number 1" || res.Reasoning != "A how-to about bread." {
		t.Fatalf("got %+v", res)
	}
	var req chatRequest
	if err := json.Unmarshal(f.bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	if req.Model != "test-model" || req.ResponseFormat["type"] != "json_object" || len(req.Messages) != 2 ||
		req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("request %s", f.bodies[0])
	}
	if !strings.Contains(string(f.bodies[0]), "How to bake bread") {
		t.Fatal("prompt missing from the request")
	}
}

func TestLLMRetryThenGood(t *testing.T) {
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){answer("Sure! Here are titles: 1. ..."), answer(goodJSON(5))}}
	res, err := newLLM(t, f).Titles(context.Background(), core.TitleRequest{Prompt: "How to bake bread"})
	if err != nil {
		t.Fatal(err)
	}
	if f.calls() != 2 || res.Titles[0] != "Model Title Number 1" {
		t.Fatalf("calls %d, result %+v", f.calls(), res)
	}
	// The retry shows the model its mistake.
	if !strings.Contains(string(f.bodies[1]), "unusable") {
		t.Fatalf("retry request lacks the correction: %s", f.bodies[1])
	}
}

func TestLLMFallbacks(t *testing.T) {
	tests := []struct {
		name  string
		reply func(http.ResponseWriter, *http.Request)
		calls int
	}{
		{"malformed twice", answer(`{"titles": ["only one"]}`), 2},
		{"not a completion", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, 2},
		{"server error", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }, 1},
		{"unauthorised", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusUnauthorized) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){tt.reply}}
			req := core.TitleRequest{Prompt: "How to bake sourdough bread", Count: 4, Seed: 3}
			res, err := newLLM(t, f).Titles(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if f.calls() != tt.calls {
				t.Fatalf("calls = %d, want %d", f.calls(), tt.calls)
			}
			if !strings.HasPrefix(res.Reasoning, fallbackNote) {
				t.Fatalf("reasoning %q does not say it fell back", res.Reasoning)
			}
			want, _ := (&Builtin{}).Titles(context.Background(), req)
			if strings.Join(res.Titles, "|") != strings.Join(want.Titles, "|") {
				t.Fatalf("titles %q, want the builtin's %q", res.Titles, want.Titles)
			}
		})
	}
}

func TestLLMTimeoutDoesNotFallBack(t *testing.T) {
	release := make(chan struct{})
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}}}
	l := newLLM(t, f)
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := l.Titles(ctx, core.TitleRequest{Prompt: "How to bake bread"})
	if core.CodeOf(err) != core.CodeTitleTimeout {
		t.Fatalf("err = %v, want TITLE_TIMEOUT", err)
	}
	if e := core.AsError(err); e.Message != "Title generation timed out." {
		t.Fatalf("message %q", e.Message)
	}
}

func TestLLMNoFallbackConfigured(t *testing.T) {
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){answer("nope")}}
	l := newLLM(t, f)
	l.Fallback = nil
	_, err := l.Titles(context.Background(), core.TitleRequest{Prompt: "bread"})
	if core.CodeOf(err) != core.CodeGenerationFailed {
		t.Fatalf("err = %v", err)
	}
}

func TestLLMImagePart(t *testing.T) {
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){answer(goodJSON(5))}}
	img := image.NewRGBA(image.Rect(0, 0, 2000, 500))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	res, err := newLLM(t, f).Titles(context.Background(), core.TitleRequest{Image: img})
	if err != nil || len(res.Titles) != 5 {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.HasPrefix(res.Reasoning, imageOnlyNote) {
		t.Errorf("reasoning %q does not say the titles come from the image only", res.Reasoning)
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(f.bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	var parts []contentPart
	if err := json.Unmarshal(req.Messages[1].Content, &parts); err != nil {
		t.Fatalf("user content is not a list of parts: %s", req.Messages[1].Content)
	}
	var found bool
	for _, p := range parts {
		if p.Type != "image_url" || p.ImageURL == nil {
			continue
		}
		found = true
		const prefix = "data:image/jpeg;base64,"
		if !strings.HasPrefix(p.ImageURL.URL, prefix) {
			t.Fatalf("image url %.40q", p.ImageURL.URL)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.ImageURL.URL, prefix))
		if err != nil {
			t.Fatal(err)
		}
		got, err := jpeg.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if b := got.Bounds(); b.Dx() != maxImageSide || b.Dy() != 256 {
			t.Fatalf("sent image is %v, want shrunk to %dx256", b, maxImageSide)
		}
	}
	if !found {
		t.Fatalf("no image_url part in %s", req.Messages[1].Content)
	}
}

func TestLLMCompactsBeforeAsking(t *testing.T) {
	f := &fakeModel{replies: []func(http.ResponseWriter, *http.Request){answer(goodJSON(5))}}
	long := strings.Repeat("Sourdough bread needs a lively starter and patience. ", 30)
	res, err := newLLM(t, f).Titles(context.Background(), core.TitleRequest{Prompt: long})
	if err != nil {
		t.Fatal(err)
	}
	if !res.PromptCompacted || len(f.bodies[0]) > 4000 {
		t.Fatalf("compacted=%v, request of %d bytes", res.PromptCompacted, len(f.bodies[0]))
	}
}

func TestLLMValidate(t *testing.T) {
	tests := []struct {
		base, model string
		ok          bool
	}{
		{"http://localhost:11434/v1", "llama3.2", true},
		{"https://api.openai.com/v1", "gpt-4o-mini", true},
		{"localhost:11434", "m", false},
		{"ftp://host/v1", "m", false},
		{"http://host/v1", " ", false},
		{"", "m", false},
	}
	for _, tt := range tests {
		if err := (&LLM{BaseURL: tt.base, Model: tt.model}).Validate(); (err == nil) != tt.ok {
			t.Errorf("Validate(%q, %q) = %v, want ok %v", tt.base, tt.model, err, tt.ok)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	long := strings.Repeat("x", 101)
	tests := []struct {
		name, content string
		ok            bool
	}{
		{"good", `{"titles":["A","B","C"],"reasoning":"r"}`, true},
		{"extra titles dropped", `{"titles":["A","B","C","D"]}`, true},
		{"fenced", "```json\n{\"titles\":[\"A\",\"B\",\"C\"]}\n```", true},
		{"quoted titles trimmed", `{"titles":["\"A\"","B","C"]}`, true},
		{"too few", `{"titles":["A","B"]}`, false},
		{"empty title", `{"titles":["A","  ","C"]}`, false},
		{"too long", `{"titles":["A","B","` + long + `"]}`, false},
		{"duplicates after normalising", `{"titles":["A b","a  B!","C"]}`, false},
		{"not json", `Here you go: A, B, C`, false},
		{"wrong shape", `{"titles":"A, B, C"}`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := parseAnswer(tt.content, 3)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, errAnswer) {
				t.Fatalf("err %v is not errAnswer", err)
			}
			if tt.ok && (len(res.Titles) != 3 || res.Reasoning == "") {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

// FuzzParseAnswer checks that whatever a model says, an accepted answer keeps the rules.
func FuzzParseAnswer(f *testing.F) {
	f.Add(`{"titles":["A","B","C"],"reasoning":"r"}`, 3)
	f.Add("```json\n{\"titles\":[\"A\"]}\n```", 1)
	f.Add(`{"titles":["\u0000", "  x  "]}`, 2)
	f.Fuzz(func(t *testing.T, content string, count int) {
		count = clampCount(count)
		res, err := parseAnswer(content, count)
		if err != nil {
			return
		}
		if len(res.Titles) != count {
			t.Fatalf("%d titles, want %d", len(res.Titles), count)
		}
		seen := map[string]bool{}
		for _, title := range res.Titles {
			if n := len([]rune(title)); n == 0 || n > MaxTitleLen || seen[normalise(title)] {
				t.Fatalf("bad title %q in %q", title, res.Titles)
			}
			seen[normalise(title)] = true
		}
	})
}
