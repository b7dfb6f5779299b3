package comfyui

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
	"thumbforge/internal/engines"
)

// run queues a bound graph under our own prompt id and returns its picture's bytes. On
// the deadline or a cancelled request it interrupts the prompt and removes it from the
// queue.
func (b *backend) run(ctx context.Context, graph json.RawMessage) ([]byte, error) {
	id := uuid.NewString() // canonical lowercase: ComfyUI takes it as the prompt_id
	clientID := "thumbforge-" + id
	wake := make(chan struct{}, 1)
	wsCtx, stopWS := context.WithCancel(ctx)
	defer stopWS()
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		b.progress(wsCtx, ctx, clientID, id, ready, wake)
	}()
	// events go only to sockets open when they happen: connect before queueing, but
	// never let progress hold up the work
	select {
	case <-ready:
	case <-ended:
	case <-time.After(wsConnectWait):
	}

	entry, err := b.submitAndWait(ctx, id, clientID, graph, wake)
	if err != nil {
		if ctx.Err() != nil {
			b.cancel(id)
			return nil, ctx.Err()
		}
		return nil, err
	}
	return b.result(ctx, id, entry)
}

// wsConnectWait bounds how long a run waits for its progress socket before queueing.
const wsConnectWait = 2 * time.Second

// progress follows the socket for our client id: sampler steps become progress, and the
// end of our prompt wakes the poller at once. ready is closed once the socket is open.
func (b *backend) progress(wsCtx, ctx context.Context, clientID, id string, ready chan struct{}, wake chan<- struct{}) {
	// net/http dials the http(s) URL and upgrades the connection (ws:// is the same thing)
	u, _ := url.Parse(b.endpoint("/ws", url.Values{"clientId": {clientID}}))
	err := listen(wsCtx, b.hc, u, b.header, ready, func(ev event) {
		if ev.Data.PromptID != id {
			return
		}
		switch ev.Type {
		case "progress":
			if ev.Data.Max > 0 {
				core.ReportProgress(ctx, 100*ev.Data.Value/ev.Data.Max)
			}
		case "executing":
			// node null: the prompt is done and its history written (execution_success
			// comes before the history is)
			if ev.Data.Node == nil {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	})
	select {
	case <-ready:
	default:
		if wsCtx.Err() == nil {
			b.log.Debug("comfyui: progress socket unavailable; polling only", "backend", b.base.Redacted(), "err", err)
		}
	}
}

// submitAndWait posts the prompt and polls until it has a history entry. A POST whose
// answer was lost is not sent again blindly: the prompt is looked for first, and sent
// again (same id) only when it is neither queued nor in history. A prompt that leaves the
// queue without reaching history (seen twice in a row) has vanished: a failure.
func (b *backend) submitAndWait(ctx context.Context, id, clientID string, graph json.RawMessage, wake <-chan struct{}) (*historyEntry, error) {
	body, err := json.Marshal(map[string]any{"prompt": graph, "client_id": clientID, "prompt_id": id})
	if err != nil {
		return nil, err
	}
	submitted, resent := false, false
	missing := 0
	for {
		if !submitted {
			err := b.submit(ctx, body)
			switch {
			case err == nil:
				submitted = true
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case !lost(err):
				return nil, err // an answer (refused, busy), or nothing was sent
			default:
				b.log.Warn("comfyui: answer to POST /prompt lost; looking for the prompt", "backend", b.base.Redacted(), "prompt_id", id, "err", err)
				submitted = true // perhaps: the queue will tell
			}
		}
		entry, found, err := b.lookup(ctx, id)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, err
		case entry != nil:
			return entry, nil
		case found:
			missing = 0
		default:
			missing++
		}
		if missing >= 2 {
			if resent {
				return nil, failf("prompt %s vanished: neither queued nor in history", id)
			}
			resent, submitted, missing = true, false, 0
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-time.After(b.poll):
		}
	}
}

// submit posts the prompt. A busy answer (429) goes back to the pool, which waits as
// Retry-After says and tries again inside the deadline.
func (b *backend) submit(ctx context.Context, body []byte) error {
	data, err := b.do(ctx, http.MethodPost, "/prompt", nil, "application/json", body)
	if err != nil {
		return err
	}
	var ok struct {
		NodeErrors map[string]json.RawMessage `json:"node_errors"`
	}
	json.Unmarshal(data, &ok)
	if len(ok.NodeErrors) > 0 {
		// some outputs failed validation and will not run: the operator should know
		b.log.Warn("comfyui: part of the workflow failed validation", "backend", b.base.Redacted(), "node_errors", excerpt(string(data)))
	}
	return nil
}

// lost reports whether a POST may have reached the server though its answer did not
// come back: the connection broke after it was made. A refused connection (nothing sent)
// or an HTTP answer is not lost.
func lost(err error) bool {
	var e *engines.Error
	if !errors.As(err, &e) || e.Class != engines.ClassUnavailable || e.Err == nil {
		return false
	}
	var op *net.OpError
	return !(errors.As(e.Err, &op) && op.Op == "dial")
}

// lookup reads /history/{id}; when it is empty, whether the prompt is still queued.
func (b *backend) lookup(ctx context.Context, id string) (*historyEntry, bool, error) {
	data, err := b.do(ctx, http.MethodGet, "/history/"+id, nil, "", nil)
	if err != nil {
		return nil, false, err
	}
	var h map[string]*historyEntry
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, false, failf("history: unreadable answer %q", excerpt(string(data)))
	}
	if e := h[id]; e != nil {
		return e, true, nil
	}
	data, err = b.do(ctx, http.MethodGet, "/queue", nil, "", nil)
	if err != nil {
		return nil, false, err
	}
	var q struct {
		Running [][]json.RawMessage `json:"queue_running"`
		Pending [][]json.RawMessage `json:"queue_pending"`
	}
	if err := json.Unmarshal(data, &q); err != nil {
		return nil, false, failf("queue: unreadable answer %q", excerpt(string(data)))
	}
	for _, it := range append(q.Running, q.Pending...) {
		var qid string
		if len(it) > 1 && json.Unmarshal(it[1], &qid) == nil && qid == id {
			return nil, true, nil
		}
	}
	return nil, false, nil
}

// result returns the bytes of a finished prompt's picture, or a failure naming ComfyUI's
// error.
func (b *backend) result(ctx context.Context, id string, e *historyEntry) ([]byte, error) {
	if e.Status.StatusStr != "success" {
		for _, m := range e.Status.Messages {
			var kind string
			if len(m) == 2 && json.Unmarshal(m[0], &kind) == nil && (kind == "execution_error" || kind == "execution_interrupted") {
				var d struct {
					NodeID   string `json:"node_id"`
					NodeType string `json:"node_type"`
					Type     string `json:"exception_type"`
					Message  string `json:"exception_message"`
				}
				json.Unmarshal(m[1], &d)
				return nil, failf("prompt %s: %s in node %s (%s): %s: %s", id, kind, d.NodeID, d.NodeType, d.Type, excerpt(d.Message))
			}
		}
		return nil, failf("prompt %s ended with status %q", id, e.Status.StatusStr)
	}
	nodes := make([]string, 0, len(e.Outputs))
	for n := range e.Outputs {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	var ref *imageRef
	for _, n := range nodes {
		for i, img := range e.Outputs[n].Images {
			if ref == nil || (img.Type == "output" && ref.Type != "output") {
				ref = &e.Outputs[n].Images[i]
			}
		}
	}
	if ref == nil {
		return nil, failf("prompt %s finished without an image: does the workflow end in SaveImage?", id)
	}
	return b.do(ctx, http.MethodGet, "/view", url.Values{"filename": {ref.Filename}, "subfolder": {ref.Subfolder}, "type": {ref.Type}}, "", nil)
}
