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
	"net/url"
	"strings"

	"golang.org/x/image/draw"

	"thumbforge/internal/core"
)

// maxAnswer bounds how much of a chat completion response is read.
const maxAnswer = 1 << 20

// maxImageSide is the longest side of an image sent to the model: enough to see it,
// small enough to keep the request light.
const maxImageSide = 1024

// fallbackNote opens the reasoning when the builtin generator stood in for the model.
const fallbackNote = "The language model's answer was unusable; these come from the builtin generator."

// LLM asks an OpenAI-compatible chat completions API (Ollama, llama.cpp, vLLM, LocalAI,
// OpenAI) for titles, and falls back to another titler when the answer is unusable.
type LLM struct {
	BaseURL    string // e.g. http://localhost:11434/v1
	Model      string
	APIKey     string // sent as a bearer token when set
	HTTPClient *http.Client
	Fallback   core.Titler
}

var _ core.Titler = (*LLM)(nil)

// Validate checks the configuration: an http(s) base URL and a model name.
func (l *LLM) Validate() error {
	u, err := url.Parse(l.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("titles: LLM base URL %q must be an http or https URL", l.BaseURL)
	}
	if strings.TrimSpace(l.Model) == "" {
		return errors.New("titles: LLM model name is required")
	}
	return nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or a list of content parts
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []chatMessage     `json:"messages"`
	ResponseFormat map[string]string `json:"response_format"`
	Temperature    float64           `json:"temperature"`
	Seed           int64             `json:"seed"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

const systemPrompt = `You write YouTube video titles. Answer with one JSON object and nothing else:
{"titles": ["...", ...], "reasoning": "..."}.
Rules: exactly the number of titles asked for; each title at most 100 characters (aim for under 70);
all titles different; specific to the video, click-worthy but not misleading; title case;
no hashtags, no emojis, no surrounding quotes. "reasoning" is one or two sentences saying what
kind of video you recognised and which key phrase you used.`

// Titles asks the model, retries once on a malformed answer, and otherwise falls back.
// When ctx's deadline passes it returns TITLE_TIMEOUT and does not fall back.
func (l *LLM) Titles(ctx context.Context, req core.TitleRequest) (core.TitleResult, error) {
	prompt, compacted := Compact(req.Prompt, MaxPrompt)
	if prompt == "" && req.Image == nil {
		return core.TitleResult{}, nothingToTitle()
	}
	count := clampCount(req.Count)
	user, err := userMessage(prompt, req.Image, count)
	if err != nil {
		return l.fallback(ctx, req, prompt, compacted, err)
	}
	msgs := []chatMessage{{Role: "system", Content: systemPrompt}, user}
	var bad error
	for attempt := 0; attempt < 2; attempt++ {
		content, err := l.complete(ctx, msgs, req.Seed)
		if err != nil {
			if cerr := ctxError(ctx); cerr != nil {
				return core.TitleResult{}, cerr
			}
			return l.fallback(ctx, req, prompt, compacted, err)
		}
		res, perr := parseAnswer(content, count)
		if perr == nil {
			res.PromptCompacted = compacted
			if prompt == "" && !strings.HasPrefix(res.Reasoning, imageOnlyNote) {
				res.Reasoning = imageOnlyNote + " " + res.Reasoning
			}
			return res, nil
		}
		// Show the model its mistake once; a second bad answer goes to the fallback.
		msgs = append(msgs, chatMessage{Role: "assistant", Content: content},
			chatMessage{Role: "user", Content: fmt.Sprintf(
				"That answer was unusable (%v). Reply again with only the JSON object and exactly %d titles.", perr, count)})
		bad = perr
	}
	return l.fallback(ctx, req, prompt, compacted, bad)
}

// fallback answers with the fallback titler, saying so in the reasoning.
func (l *LLM) fallback(ctx context.Context, req core.TitleRequest, prompt string, compacted bool, cause error) (core.TitleResult, error) {
	if l.Fallback == nil {
		return core.TitleResult{}, core.Wrap(core.CodeGenerationFailed, cause, "Title generation failed.")
	}
	req.Prompt = prompt
	res, err := l.Fallback.Titles(ctx, req)
	if err != nil {
		return core.TitleResult{}, err
	}
	res.Reasoning = strings.TrimSpace(fallbackNote + " " + res.Reasoning)
	res.PromptCompacted = res.PromptCompacted || compacted
	return res, nil
}

func userMessage(prompt string, img image.Image, count int) (chatMessage, error) {
	var text string
	switch {
	case prompt != "" && img != nil:
		text = fmt.Sprintf("Write %d titles for this video. Description: %s\nThe attached image is its thumbnail; use its mood, but the description leads.", count, prompt)
	case prompt != "":
		text = fmt.Sprintf("Write %d titles for this video. Description: %s", count, prompt)
	default:
		text = fmt.Sprintf("Write %d titles for the video whose thumbnail is attached. Say in the reasoning that the titles are based on the image only.", count)
	}
	parts := []contentPart{{Type: "text", Text: text}}
	if img != nil {
		u, err := jpegDataURL(img)
		if err != nil {
			return chatMessage{}, err
		}
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
	}
	return chatMessage{Role: "user", Content: parts}, nil
}

// jpegDataURL encodes img, shrunk to maxImageSide, as a base64 JPEG data URL.
func jpegDataURL(img image.Image) (string, error) {
	b := img.Bounds()
	if w, h := b.Dx(), b.Dy(); w > maxImageSide || h > maxImageSide {
		scale := float64(maxImageSide) / float64(max(w, h))
		dst := image.NewRGBA(image.Rect(0, 0, max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		img = dst
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return "", fmt.Errorf("encode image for the model: %w", err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// complete sends one chat completion request and returns the answer's text.
func (l *LLM) complete(ctx context.Context, msgs []chatMessage, seed uint64) (string, error) {
	body, err := json.Marshal(chatRequest{
		Model: l.Model, Messages: msgs, ResponseFormat: map[string]string{"type": "json_object"},
		Temperature: 0.7, Seed: int64(seed & 0x7fffffff),
	})
	if err != nil {
		return "", err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost,
		strings.TrimRight(l.BaseURL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("chat completions: status %d", resp.StatusCode)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		// A body that is not a chat completion is a malformed answer, worth the retry.
		return "", nil
	}
	return cr.Choices[0].Message.Content, nil
}

// errAnswer describes what was wrong with a model's answer.
var errAnswer = errors.New("malformed answer")

// parseAnswer validates a model's JSON answer: at least count non-empty titles of at
// most MaxTitleLen characters, all different. Extra titles are dropped.
func parseAnswer(content string, count int) (core.TitleResult, error) {
	content = strings.TrimSpace(content)
	// Some models wrap JSON in a Markdown fence despite response_format.
	if strings.HasPrefix(content, "```") {
		content = strings.TrimPrefix(content, "```json")
		content = strings.TrimPrefix(content, "```")
		content = strings.TrimSuffix(strings.TrimSpace(content), "```")
	}
	var ans struct {
		Titles    []string `json:"titles"`
		Reasoning string   `json:"reasoning"`
	}
	if err := json.Unmarshal([]byte(content), &ans); err != nil {
		return core.TitleResult{}, fmt.Errorf("%w: not a JSON object", errAnswer)
	}
	var titles []string
	seen := map[string]bool{}
	for _, t := range ans.Titles {
		t = strings.Join(strings.Fields(strings.Trim(strings.TrimSpace(t), `"“”`)), " ")
		switch n := normalise(t); {
		case t == "" || n == "":
			return core.TitleResult{}, fmt.Errorf("%w: an empty title", errAnswer)
		case len([]rune(t)) > MaxTitleLen:
			return core.TitleResult{}, fmt.Errorf("%w: a title over %d characters", errAnswer, MaxTitleLen)
		case seen[n]:
			return core.TitleResult{}, fmt.Errorf("%w: repeated titles", errAnswer)
		default:
			seen[n] = true
			titles = append(titles, t)
		}
		if len(titles) == count {
			break
		}
	}
	if len(titles) < count {
		return core.TitleResult{}, fmt.Errorf("%w: %d titles instead of %d", errAnswer, len(titles), count)
	}
	reasoning := strings.TrimSpace(ans.Reasoning)
	if reasoning == "" {
		reasoning = "Titles written by the language model."
	}
	return core.TitleResult{Titles: titles, Reasoning: reasoning}, nil
}
