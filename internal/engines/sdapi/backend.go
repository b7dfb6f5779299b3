package sdapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // servers set to save JPEG answer JPEG
	_ "image/png"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// backend talks to one sdapi server (AUTOMATIC1111, Forge, SD.Next, sd.cpp's sd-server).
type backend struct {
	base       *url.URL
	user, pass string // HTTP Basic, when set
	hc         *http.Client
	log        *slog.Logger
	watchEvery time.Duration // how often a cancelled, still queued task is looked at
}

// failure is a backend failure: GENERATION_FAILED for the client, the text for the log.
type failure struct {
	msg        string
	status     int
	retryAfter time.Duration // > 0: busy (429/503), come back then
}

func (e *failure) Error() string { return "sdapi: " + e.msg }

// call posts (or gets, when body is nil) JSON and decodes a 2xx answer into out.
func (b *backend) call(ctx context.Context, method, p string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	u := *b.base
	u.Path = path.Join(u.Path, p)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.user != "" || b.pass != "" {
		req.SetBasicAuth(b.user, b.pass)
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		f := &failure{msg: fmt.Sprintf("%s %s: HTTP %d: %s", method, p, resp.StatusCode, clip(string(data))), status: resp.StatusCode}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			f.retryAfter = retryAfter(resp.Header.Get("Retry-After"))
		}
		return f
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &failure{msg: fmt.Sprintf("%s %s: unreadable answer %q", method, p, clip(string(data)))}
	}
	return nil
}

// retryAfter reads Retry-After (seconds or an HTTP date); 1 s when absent or unreadable.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return max(time.Duration(s)*time.Second, 100*time.Millisecond)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 100*time.Millisecond)
	}
	return time.Second
}

// generate runs txt2img or img2img and decodes images[0]. A busy server (429/503) is
// waited for as Retry-After says, inside ctx. When ctx ends first, the server is asked to
// interrupt, but only if the task it runs is ours (its interrupt is global).
func (b *backend) generate(ctx context.Context, op string, req map[string]any) (image.Image, error) {
	task, _ := req["force_task_id"].(string)
	for {
		var out struct {
			Images []string `json:"images"`
		}
		err := b.call(ctx, http.MethodPost, "/sdapi/v1/"+op, req, &out)
		var f *failure
		switch {
		case ctx.Err() != nil:
			go b.interruptWhenOurs(task)
			return nil, ctx.Err()
		case errors.As(err, &f) && f.retryAfter > 0:
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < f.retryAfter {
				return nil, err
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(f.retryAfter):
				continue
			}
		case err != nil:
			return nil, err
		}
		if len(out.Images) == 0 {
			return nil, &failure{msg: op + ": the answer has no image"}
		}
		img, err := decodeB64(out.Images[0])
		if err != nil {
			return nil, &failure{msg: op + ": images[0] does not decode: " + err.Error()}
		}
		return img, nil
	}
}

// queuedWatch bounds how long a cancelled task that still waits in the server's queue is
// watched, to interrupt it when it starts (A1111 runs a request whose client left).
const queuedWatch = 10 * time.Minute

// interruptWhenOurs interrupts the server's current job when it is our cancelled task.
// A1111's interrupt is global, so the task's state is asked first (POST /internal/progress,
// which A1111 and Forge serve): active is interrupted at once; queued is watched until it
// starts, then interrupted; completed or unknown is left alone. Servers without the route
// (sd.cpp) cannot be told anything: closing the request is all that can be done there.
func (b *backend) interruptWhenOurs(task string) {
	if task == "" {
		return
	}
	for start := time.Now(); time.Since(start) < queuedWatch; time.Sleep(b.watchEvery) {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		var st struct {
			Active bool `json:"active"`
			Queued bool `json:"queued"`
		}
		err := b.call(ctx, http.MethodPost, "/internal/progress", map[string]any{"id_task": task, "id_live_preview": -1, "live_preview": false}, &st)
		switch {
		case err != nil:
			b.log.Debug("sdapi: cannot tell whether the cancelled task runs; not interrupting", "backend", b.base.Redacted(), "task", task, "err", err)
		case st.Active:
			if err := b.call(ctx, http.MethodPost, "/sdapi/v1/interrupt", nil, nil); err != nil {
				b.log.Warn("sdapi: interrupting a cancelled task failed", "backend", b.base.Redacted(), "task", task, "err", err)
			}
		}
		done()
		if err != nil || !st.Queued {
			return
		}
	}
}

// ping is the health probe: GET /sdapi/v1/options.
func (b *backend) ping(ctx context.Context) error {
	var opts map[string]any
	return b.call(ctx, http.MethodGet, "/sdapi/v1/options", nil, &opts)
}

// decodeB64 decodes a base64 image, with or without a data: prefix.
func decodeB64(s string) (image.Image, error) {
	if i := strings.Index(s, ";base64,"); strings.HasPrefix(s, "data:") && i > 0 {
		s = s[i+len(";base64,"):]
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:297] + "..."
	}
	return s
}
