package sdapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// backend talks to one sdapi server (AUTOMATIC1111, Forge, SD.Next, sd.cpp's sd-server).
type backend struct {
	base       *url.URL
	user, pass string // HTTP Basic, when set
	hc         *http.Client
	log        *slog.Logger
	watchEvery time.Duration // how often a cancelled, still queued task is looked at
}

// call posts (or gets, when body is nil) JSON and decodes a 2xx answer into out. Other
// statuses are *engines.Error by status; a request that could not be sent is unavailable.
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
	data, err := engines.Call(b.hc, req, maxAnswer, nil)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return engines.Failed("%s %s: unreadable answer %q", method, p, clip(string(data)))
	}
	return nil
}

// maxAnswer bounds what is read of one answer (base64 of a large PNG).
const maxAnswer = 256 << 20

// generate runs txt2img or img2img and returns the bytes of images[0]. A busy answer
// (429) goes back to the pool, which waits and retries inside the deadline. When ctx
// ends first, the server is asked to interrupt, but only the task that is ours (its
// interrupt is global).
func (b *backend) generate(ctx context.Context, op string, req map[string]any) ([]byte, error) {
	task, _ := req["force_task_id"].(string)
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go b.follow(pctx, ctx, task)
	var out struct {
		Images []string `json:"images"`
	}
	err := b.call(ctx, http.MethodPost, "/sdapi/v1/"+op, req, &out)
	stop()
	switch {
	case ctx.Err() != nil:
		go b.interruptWhenOurs(task)
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	case len(out.Images) == 0:
		return nil, engines.Failed("%s: the answer has no image", op)
	}
	data, err := decodeB64(out.Images[0])
	if err != nil {
		return nil, engines.Failed("%s: images[0] is not base64: %v", op, err)
	}
	return data, nil
}

// follow reports the task's progress while its request runs, from POST
// /internal/progress (A1111, Forge); it stops at the first answer that is not one
// (sd.cpp has no such route) or when pctx ends.
func (b *backend) follow(pctx, ctx context.Context, task string) {
	for {
		select {
		case <-pctx.Done():
			return
		case <-time.After(b.watchEvery):
		}
		var st struct {
			Progress *float64 `json:"progress"`
		}
		if err := b.call(pctx, http.MethodPost, "/internal/progress", map[string]any{"id_task": task, "id_live_preview": -1, "live_preview": false}, &st); err != nil {
			return
		}
		if st.Progress != nil {
			core.ReportProgress(ctx, int(*st.Progress*100))
		}
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

// decodeB64 decodes a base64 picture, with or without a data: prefix.
func decodeB64(s string) ([]byte, error) {
	if i := strings.Index(s, ";base64,"); strings.HasPrefix(s, "data:") && i > 0 {
		s = s[i+len(";base64,"):]
	}
	return base64.StdEncoding.DecodeString(s)
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:297] + "..."
	}
	return s
}
