package comfyui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"time"

	"thumbforge/internal/engines"
)

// backend talks to one ComfyUI server.
type backend struct {
	base   *url.URL
	header http.Header // Authorization when a key is set; never Origin
	hc     *http.Client
	poll   time.Duration // how often /history is read while a prompt runs
	log    *slog.Logger
}

// failf is a backend failure (GENERATION_FAILED); the text goes to the log only.
func failf(format string, a ...any) error { return engines.Failed(format, a...) }

// endpoint is base + p (+ query).
func (b *backend) endpoint(p string, q url.Values) string {
	u := *b.base
	u.Path = path.Join(u.Path, p)
	u.RawQuery = q.Encode()
	return u.String()
}

// do sends a request and returns the body of a 2xx answer. Other statuses are
// *engines.Error by status (429 busy; 401, 403, 502-504 unavailable; the rest failed),
// and a request that could not be sent is unavailable.
func (b *backend) do(ctx context.Context, method, p string, q url.Values, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, b.endpoint(p, q), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return engines.Call(b.hc, req, maxAnswer, nil)
}

// maxAnswer bounds what is read of one answer (a 4K PNG is ~25 MB).
const maxAnswer = 128 << 20

// upload sends a PNG to /upload/image under a name made of its content's hash, with
// overwrite: the same picture always gets the same name, so retries and repeated
// requests never pile up renamed copies. It returns the name LoadImage takes.
func (b *backend) upload(ctx context.Context, png []byte) (string, error) {
	sum := sha256.Sum256(png)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("image", "tf-"+hex.EncodeToString(sum[:12])+".png")
	if err != nil {
		return "", err
	}
	fw.Write(png)
	mw.WriteField("type", "input")
	mw.WriteField("subfolder", "thumbforge")
	mw.WriteField("overwrite", "true")
	mw.Close()
	data, err := b.do(ctx, http.MethodPost, "/upload/image", nil, mw.FormDataContentType(), body.Bytes())
	if err != nil {
		return "", err
	}
	var out struct {
		Name      string `json:"name"`
		Subfolder string `json:"subfolder"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Name == "" {
		return "", failf("upload: unreadable answer %q", excerpt(string(data)))
	}
	if out.Subfolder != "" {
		return out.Subfolder + "/" + out.Name, nil
	}
	return out.Name, nil
}

// historyEntry is what /history/{id} holds for a finished prompt.
type historyEntry struct {
	Outputs map[string]struct {
		Images []imageRef `json:"images"`
	} `json:"outputs"`
	Status struct {
		StatusStr string              `json:"status_str"`
		Completed bool                `json:"completed"`
		Messages  [][]json.RawMessage `json:"messages"`
	} `json:"status"`
}

type imageRef struct {
	Filename  string `json:"filename"`
	Subfolder string `json:"subfolder"`
	Type      string `json:"type"`
}

// cancel removes the prompt from the queue and interrupts it if it runs, on a context of
// its own: the request's has ended.
func (b *backend) cancel(id string) {
	ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	del, _ := json.Marshal(map[string]any{"delete": []string{id}})
	if _, err := b.do(ctx, http.MethodPost, "/queue", nil, "application/json", del); err != nil {
		b.log.Warn("comfyui: removing a cancelled prompt from the queue failed", "backend", b.base.Redacted(), "prompt_id", id, "err", err)
	}
	in, _ := json.Marshal(map[string]string{"prompt_id": id})
	if _, err := b.do(ctx, http.MethodPost, "/interrupt", nil, "application/json", in); err != nil {
		b.log.Warn("comfyui: interrupting a cancelled prompt failed", "backend", b.base.Redacted(), "prompt_id", id, "err", err)
	}
}

// ping is the health probe: GET /system_stats.
func (b *backend) ping(ctx context.Context) error {
	_, err := b.do(ctx, http.MethodGet, "/system_stats", nil, "", nil)
	return err
}

// excerpt keeps enough of a backend's text for the log.
func excerpt(s string) string {
	if len(s) > 1000 {
		return s[:997] + "..."
	}
	return s
}
