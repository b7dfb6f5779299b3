package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"

	"thumbforge/internal/core"
)

// Idempotent retries: a POST sent with an Idempotency-Key claims the key for its account;
// a repeat with the same request gets the first answer back (Idempotent-Replayed: true)
// and runs nothing, so nothing is charged twice. The claim is a row the database
// arbitrates (core.Idempotency), so the rule holds across replicas.

// Idempotency headers.
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderReplayed       = "Idempotent-Replayed"
	maxIdempotencyKey    = 255
	// maxKeptAnswer bounds an answer kept for replays; every API answer is far smaller.
	maxKeptAnswer = 1 << 20
)

// keptHeaders are the answer headers a replay repeats.
var keptHeaders = []string{"Content-Type", "Location", HeaderPreferenceApplied}

// idempotencyKey reads the header: absent, or 1 to 255 printable ASCII characters, once.
func idempotencyKey(r *http.Request) (string, bool, error) {
	vals := r.Header.Values(HeaderIdempotencyKey)
	if len(vals) == 0 {
		return "", false, nil
	}
	bad := func(msg string) error {
		return core.Invalid([]core.Detail{{Field: HeaderIdempotencyKey, Message: msg}})
	}
	if len(vals) > 1 {
		return "", false, bad("send the header once")
	}
	k := vals[0]
	if len(k) < 1 || len(k) > maxIdempotencyKey {
		return "", false, bad("must be 1 to 255 printable characters")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return "", false, bad("must be 1 to 255 printable characters")
		}
	}
	return k, true, nil
}

// fingerprint tells requests apart: the same method, path and body bytes are the same
// request.
func fingerprint(r *http.Request, body []byte) []byte {
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.Path+"\n")
	h.Write(bytes.TrimSpace(body))
	return h.Sum(nil)
}

// idempotent runs serve under the request's Idempotency-Key, if it has one.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, p core.Principal, v Version, serve handlerFunc) error {
	key, ok, err := idempotencyKey(r)
	if err != nil || !ok {
		if err != nil {
			return err
		}
		return serve(w, r)
	}
	body, err := readAll(r)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	ctx := r.Context()
	claim := &core.IdempotentRequest{AccountID: p.Account.ID, Key: key, Fingerprint: fingerprint(r, body), RequestID: core.RequestID(ctx)}
	live, err := s.store.ClaimIdempotencyKey(ctx, claim, s.svc.Now().Add(-s.idemLease))
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if live != nil {
		return replay(w, live, claim.Fingerprint)
	}
	rec := &keeper{recorder: recorder{ResponseWriter: w}}
	if err := serve(rec, r); err != nil && rec.status == 0 {
		writeError(rec, r, s.log, v, err)
	}
	done := context.WithoutCancel(ctx)
	if !rec.keep() {
		if err := s.store.ReleaseIdempotencyKey(done, p.Account.ID, key, claim.RequestID); err != nil {
			s.log.ErrorContext(ctx, "release idempotency key", "request_id", claim.RequestID, "err", err)
		}
		return nil
	}
	header := map[string]string{}
	for _, h := range keptHeaders {
		if v := rec.Header().Get(h); v != "" {
			header[h] = v
		}
	}
	if err := s.store.FinishIdempotencyKey(done, p.Account.ID, key, claim.RequestID, rec.status, header, rec.body.Bytes()); err != nil {
		s.log.ErrorContext(ctx, "keep idempotent answer", "request_id", claim.RequestID, "err", err)
	}
	return nil
}

// replay answers a repeat: the kept answer, or why there is none to give.
func replay(w http.ResponseWriter, live *core.IdempotentRequest, fp []byte) error {
	switch {
	case !bytes.Equal(live.Fingerprint, fp):
		return &core.Error{Code: core.CodeIdempotencyReused, Message: "This Idempotency-Key was used with another request; use a new key for a new request.",
			Details: []core.Detail{{Field: HeaderIdempotencyKey, Message: "used with another request"}}}
	case live.State != core.IdempotencyDone:
		return &core.Error{Code: core.CodeConflict, Message: "A request with this Idempotency-Key is still running; retry when it has finished.",
			Details: []core.Detail{{Field: HeaderIdempotencyKey, Message: "in use by a running request " + live.RequestID}}}
	}
	for k, v := range live.Header {
		w.Header().Set(k, v)
	}
	// The answer is the first request's own, its id included.
	w.Header().Set("X-Request-Id", live.RequestID)
	w.Header().Set(HeaderReplayed, "true")
	w.WriteHeader(live.Status)
	w.Write(live.Body)
	return nil
}

// keeper passes an answer on and keeps a copy to replay.
type keeper struct {
	recorder
	body bytes.Buffer
	over bool
}

func (k *keeper) Write(b []byte) (int, error) {
	if k.body.Len()+len(b) > maxKeptAnswer {
		k.over = true
	} else {
		k.body.Write(b)
	}
	return k.recorder.Write(b)
}

// keep says whether the answer is kept for repeats. Answers that charged nothing and may
// come out otherwise on a retry are not: the key is free again. Those are the 5xx answers,
// 429 (too busy), 499 (the client went away before the answer) and 503 (maintenance).
func (k *keeper) keep() bool {
	switch {
	case k.over || k.status == 0 || k.status >= 500:
		return false
	case k.status == http.StatusTooManyRequests, k.status == 499:
		return false
	}
	return true
}
