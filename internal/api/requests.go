package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// Asynchronous requests and request lookup (docs/API.md, "Asynchronous requests").

// Headers of asynchronous requests (RFC 7240).
const (
	HeaderPrefer            = "Prefer"
	HeaderPreferenceApplied = "Preference-Applied"
	preferAsync             = "respond-async"
)

// wantsAsync reports whether the request asks for an asynchronous answer: a Prefer header
// naming respond-async among its preferences (any letter case; parameters ignored).
func wantsAsync(r *http.Request) bool {
	for _, v := range r.Header.Values(HeaderPrefer) {
		for _, pref := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(pref, ";")
			name, _, _ = strings.Cut(name, "=")
			if strings.EqualFold(strings.TrimSpace(name), preferAsync) {
				return true
			}
		}
	}
	return false
}

// serveGenerating is serveJSON for the generating v2 POSTs: the same validation, then
// with Prefer: respond-async the request is accepted to run later (202) instead of run.
func serveGenerating[P any](s *Server, decode func(*body) (P, error), run func(*http.Request, P) (any, error), work func(P) core.Work) handlerFunc {
	sync := serveJSON(decode, run)
	return func(w http.ResponseWriter, r *http.Request) error {
		if !wantsAsync(r) {
			return sync(w, r)
		}
		b, err := readBody(r)
		if err != nil {
			return err
		}
		p, err := decode(b)
		if err != nil {
			return err
		}
		req, err := s.svc.Submit(r.Context(), principal(r), work(p))
		if err != nil {
			return err
		}
		url := "/v2/requests/" + req.ID.String()
		w.Header().Set("Location", url)
		w.Header().Set(HeaderPreferenceApplied, preferAsync)
		writeJSON(w, http.StatusAccepted, acceptedBody{RequestID: req.ID.String(), Status: string(req.Status), StatusURL: url})
		return nil
	}
}

// acceptedBody answers an accepted asynchronous request.
type acceptedBody struct {
	RequestID string `json:"request_id"`
	Status    string `json:"status"`
	StatusURL string `json:"status_url"`
}

// requestBody is what GET /v2/requests/{id} answers.
type requestBody struct {
	RequestID string `json:"request_id"`
	Operation string `json:"operation"`
	Status    string `json:"status"`
	Progress  int    `json:"progress"`
	// QueuePosition is set while the request is queued.
	QueuePosition *int            `json:"queue_position,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	FinishedAt    *time.Time      `json:"finished_at"`
	Result        json.RawMessage `json:"result"`
	Error         *v2ErrorBody    `json:"error"`
}

// requestView renders a request as GET /v2/requests/{id} answers it.
func (s *Server) requestView(ctx context.Context, r *core.Request) (*requestBody, error) {
	b := &requestBody{RequestID: r.ID.String(), Operation: r.Operation, Status: string(r.Status), Progress: r.Progress,
		CreatedAt: r.CreatedAt.UTC(), FinishedAt: r.FinishedAt}
	if len(r.Result) > 0 {
		b.Result = json.RawMessage(r.Result)
	}
	if e := core.DecodeError(r.Error); e != nil {
		b.Error = v2Body(e, b.RequestID)
	}
	if r.Status == core.RequestQueued {
		n, err := s.store.QueuePosition(ctx, r)
		if err != nil {
			return nil, core.Wrap(core.CodeInternal, err, "Internal error.")
		}
		n = max(n, 1) // started between the two reads: it was at the front
		b.QueuePosition = &n
	}
	return b, nil
}

// requestID reads the {id} path value; a malformed id names no request.
func requestID(r *http.Request) (uuid.UUID, error) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, core.E(core.CodeNotFound, "No request with this id exists.")
	}
	return id, nil
}

// v2GetRequest answers GET /v2/requests/{id}: the account's request, asynchronous or not.
func (s *Server) v2GetRequest(w http.ResponseWriter, r *http.Request) error {
	id, err := requestID(r)
	if err != nil {
		return err
	}
	req, err := s.store.GetRequest(r.Context(), principal(r).Account.ID, id)
	if err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return core.E(core.CodeNotFound, "No request with this id exists.")
		}
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	body, err := s.requestView(r.Context(), req)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, body)
	return nil
}

// v2CancelRequest answers DELETE /v2/requests/{id}: the request, now cancelled.
func (s *Server) v2CancelRequest(w http.ResponseWriter, r *http.Request) error {
	id, err := requestID(r)
	if err != nil {
		return err
	}
	req, err := s.svc.CancelRequest(r.Context(), principal(r), id)
	if err != nil {
		return err
	}
	body, err := s.requestView(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// WorkSlot takes the in-flight slot an asynchronous request holds while it runs: one of
// its key's (or, per account, its account's), counted with the synchronous requests.
func (s *Server) WorkSlot(ctx context.Context, p core.Principal) (func(), bool, error) {
	key, _, limit := s.slotKey(p)
	return s.limiter.Acquire(ctx, key, limit)
}
