package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Asynchronous requests (docs/API.md, "Asynchronous requests"): a generating request sent
// with Prefer: respond-async is checked and its credits held at once (Submit), stored as a
// queued request that owns the hold, and run later by a job on the persistent queue
// (RunRequest) on any replica. Its row is the state: the job carries only its id.

// Kinds of Work.
const (
	WorkThumbnail = "thumbnail"
	WorkEdit      = "edit"
	WorkFaceSwap  = "faceswap"
	WorkScore     = "score"
	WorkTitle     = "title"
)

// Work is a generating request's validated input, kept with an asynchronous request until
// its job runs it. Exactly the field of its Kind is set.
type Work struct {
	Kind      string           `json:"kind"`
	Thumbnail *ThumbnailParams `json:"thumbnail,omitempty"`
	Edit      *EditParams      `json:"edit,omitempty"`
	FaceSwap  *FaceSwapParams  `json:"faceswap,omitempty"`
	Score     *ImageRef        `json:"score,omitempty"`
	Title     *TitleParams     `json:"title,omitempty"`
}

// DefaultAsyncWait is how long an accepted asynchronous request may wait in the queue
// before it is given up (failed, its credits released) if no job has started it.
const DefaultAsyncWait = time.Hour

// DefaultProgressInterval is how often a running asynchronous request writes its progress
// and checks that it was not cancelled (on another replica).
const DefaultProgressInterval = time.Second

// RequestQueue queues asynchronous requests' jobs (jobs.Queue).
type RequestQueue interface {
	// EnqueueRequest queues the job of request id; queueing one already queued, running or
	// done does nothing.
	EnqueueRequest(ctx context.Context, id uuid.UUID) error
}

// ErrBusy means an asynchronous request cannot start now: its key's in-flight slots are
// all taken. Its job waits a moment and tries again.
var ErrBusy = errors.New("no in-flight slot free for the request's key")

// ErrCancelRequested is the cause of the context of work whose request was cancelled.
var ErrCancelRequested = errors.New("request cancelled by its caller")

// lostError is the public error of a request whose process died before it ended.
var lostError = []byte(`{"code":"INTERNAL_ERROR","message":"The server running this request stopped before it finished; nothing was charged."}`)

// errInterrupted is the error of asynchronous work that the queue stopped (the process is
// shutting down): the request stays open and its job runs again.
type errInterrupted struct{ err error }

func (e *errInterrupted) Error() string { return "interrupted: " + e.err.Error() }
func (e *errInterrupted) Unwrap() error { return e.err }

// interrupted reports whether ctx was cancelled for another reason than its request's
// cancellation: the queue stopped the job (shutdown). Deadlines are the request's own end.
func interrupted(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled) && !errors.Is(context.Cause(ctx), ErrCancelRequested)
}

type startedKey struct{}

// startedRequest is the asynchronous request whose work ctx carries, if any.
func startedRequest(ctx context.Context) *Request {
	r, _ := ctx.Value(startedKey{}).(*Request)
	return r
}

// prepare checks what can be checked of w before its credits are held and returns its
// price key: the same refusals the synchronous request would answer before running.
func (s *Service) prepare(ctx context.Context, p Principal, w Work) (string, error) {
	switch {
	case w.Kind == WorkThumbnail && w.Thumbnail != nil:
		in := w.Thumbnail
		if err := s.checkText("prompt", in.Prompt); err != nil {
			return "", err
		}
		if in.PersonaID != "" {
			if _, err := s.usableCustom(ctx, p, in.PersonaID, ModePersona, CodeInvalidPersona); err != nil {
				return "", err
			}
		}
		if in.StyleID != "" {
			if _, err := s.usableCustom(ctx, p, in.StyleID, ModeStyle, CodeInvalidStyle); err != nil {
				return "", err
			}
		}
		return OpThumbnailPrefix + in.Model, nil
	case w.Kind == WorkEdit && w.Edit != nil:
		return OpEdit, s.checkText("prompt", w.Edit.Instruction)
	case w.Kind == WorkFaceSwap && w.FaceSwap != nil:
		if s.cfg.Swapper == nil {
			return "", E(CodeGenerationRejected, "Face swap is not available on this server.")
		}
		return OpFaceSwap, nil
	case w.Kind == WorkScore && w.Score != nil:
		return OpScore, nil
	case w.Kind == WorkTitle && w.Title != nil:
		if s.cfg.Titler == nil {
			return "", E(CodeGenerationRejected, "Title generation is not available on this server.")
		}
		return OpTitle, s.checkText("prompt", w.Title.Prompt)
	}
	return "", Wrap(CodeInternal, fmt.Errorf("work of kind %q without its input", w.Kind), "Internal error.")
}

// run does w as the started request in ctx; its answer is kept by paid.
func (s *Service) run(ctx context.Context, p Principal, w Work) error {
	var err error
	switch w.Kind {
	case WorkThumbnail:
		_, err = s.Thumbnail(ctx, p, *w.Thumbnail)
	case WorkEdit:
		_, err = s.Edit(ctx, p, *w.Edit)
	case WorkFaceSwap:
		_, err = s.FaceSwap(ctx, p, *w.FaceSwap)
	case WorkScore:
		_, err = s.Score(ctx, p, *w.Score)
	case WorkTitle:
		_, err = s.Titles(ctx, p, *w.Title)
	default:
		err = Wrap(CodeInternal, fmt.Errorf("unknown work kind %q", w.Kind), "Internal error.")
	}
	return err
}

// Submit accepts w as an asynchronous request under the request id in ctx: it is checked,
// its credits are held by a queued request row in one transaction, and its job is queued.
// Refusals are the synchronous request's (content policy, persona, credits).
func (s *Service) Submit(ctx context.Context, p Principal, w Work) (*Request, error) {
	if s.cfg.Requests == nil {
		return nil, E(CodeGenerationRejected, "Asynchronous requests are not available on this server.")
	}
	op, err := s.prepare(ctx, p, w)
	if err != nil {
		return nil, err
	}
	price, ok := s.cfg.Prices.Price(op)
	if !ok {
		return nil, Wrap(CodeInternal, fmt.Errorf("no price for %q", op), "The service is misconfigured.")
	}
	id, err := uuid.Parse(RequestID(ctx))
	if err != nil {
		id = uuid.Must(uuid.NewV7())
	}
	params, err := json.Marshal(w)
	if err != nil {
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	r := &Request{ID: id, AccountID: p.Account.ID, Operation: op, Status: RequestQueued, Async: true,
		KeyID: keyID(p), Params: params, Deadline: s.cfg.Now().Add(s.cfg.AsyncWait + s.cfg.Timeouts.Budget(op))}
	if err := s.cfg.Store.BeginRequest(ctx, r, price); err != nil {
		return nil, holdError(err, price)
	}
	if err := s.cfg.Requests.EnqueueRequest(context.WithoutCancel(ctx), id); err != nil {
		err = Wrap(CodeInternal, err, "Internal error.")
		s.finish(ctx, id, RequestEnd{Status: RequestFailed, Error: EncodeError(err)})
		return nil, err
	}
	r.Params = nil
	return r, nil
}

// RunRequest is the job of an asynchronous request: it takes an in-flight slot of the
// request's key (ErrBusy when none is free), starts the request, runs its work with
// progress written and cancellation watched, and announces its end. A request already
// ended is only announced again (its event is delivered once). An error asks the queue
// to run the job again.
func (s *Service) RunRequest(ctx context.Context, id uuid.UUID) error {
	r, err := s.cfg.Store.RequestByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil // finished and forgotten
	}
	if err != nil {
		return err
	}
	if !r.Open() {
		s.announce(ctx, r)
		return nil
	}
	p, err := s.principalOf(ctx, r)
	if err != nil {
		return err
	}
	if s.cfg.Slots != nil {
		release, ok, err := s.cfg.Slots(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			return ErrBusy
		}
		defer release()
	}
	r, err = s.cfg.Store.StartRequest(ctx, id, s.cfg.Now().Add(s.cfg.Timeouts.Budget(r.Operation)))
	if errors.Is(err, ErrConflict) {
		s.announce(ctx, r)
		return nil
	}
	if err != nil {
		return err
	}
	err = s.runStarted(ctx, p, r)
	var intr *errInterrupted
	if errors.As(err, &intr) || errors.Is(err, ErrBusy) {
		return err // the request stays open: its job runs again
	}
	if err != nil {
		// Refused before its work began (a persona deleted since): end it with that error.
		s.finish(ctx, id, RequestEnd{Status: RequestFailed, Error: EncodeError(err)})
	}
	if end, err := s.cfg.Store.RequestByID(context.WithoutCancel(ctx), id); err == nil {
		s.announce(ctx, end)
	}
	return nil
}

// runStarted runs a started request's work under a context that its cancellation ends,
// reporting its progress.
func (s *Service) runStarted(ctx context.Context, p Principal, r *Request) error {
	release, err := s.reserveParams(ctx, len(r.Params))
	if err != nil {
		return err
	}
	defer release()
	var w Work
	if err := json.Unmarshal(r.Params, &w); err != nil {
		return Wrap(CodeInternal, err, "Internal error.")
	}
	r.Params = nil
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.running.Store(r.ID, cancel)
	defer s.running.Delete(r.ID)
	var progress atomic.Int64
	progress.Store(-1)
	wctx = WithProgress(wctx, func(pct int) {
		for {
			old := progress.Load()
			if int64(pct) <= old || progress.CompareAndSwap(old, int64(pct)) {
				return
			}
		}
	})
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.watch(wctx, r.ID, &progress, cancel, done)
	}()
	defer func() { close(done); <-watched }()
	wctx = WithRequestID(context.WithValue(wctx, startedKey{}, r), r.ID.String())
	return s.run(wctx, p, w)
}

// smallParams is the input size below which a job reserves no memory for it (the API's
// rule for request bodies).
const smallParams = 64 << 10

// reserveParams holds, while the work runs, what its kept input weighs in memory: its
// bytes and the strings decoded from them, as the API reserves for a request's body. No
// memory free in time is ErrBusy (the job tries again); an input larger than one share of
// the budget was admitted as a body already and runs unreserved.
func (s *Service) reserveParams(ctx context.Context, n int) (func(), error) {
	if s.cfg.Reserve == nil || n < smallParams {
		return func() {}, nil
	}
	release, err := s.cfg.Reserve(ctx, 2*int64(n))
	switch {
	case err == nil:
		return release, nil
	case ctx.Err() != nil:
		return nil, &errInterrupted{ctx.Err()}
	case CodeOf(err) == CodeTooManyRequests:
		return nil, ErrBusy
	}
	s.cfg.Logger.WarnContext(ctx, "asynchronous request's input not reserved", "bytes", n, "err", err)
	return func() {}, nil
}

// watch writes the work's progress every interval (only when it moved) and cancels the
// work once its request has ended elsewhere (cancelled on another replica).
func (s *Service) watch(ctx context.Context, id uuid.UUID, progress *atomic.Int64, cancel context.CancelCauseFunc, done <-chan struct{}) {
	t := time.NewTicker(s.cfg.ProgressInterval)
	defer t.Stop()
	written := int64(-1)
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pct := progress.Load()
		report := -1
		if pct > written {
			report = int(pct)
		}
		open, err := s.cfg.Store.TouchRequest(ctx, id, report)
		if err != nil {
			if ctx.Err() == nil {
				s.cfg.Logger.WarnContext(ctx, "request progress", "request", id, "err", err)
			}
			continue
		}
		written = max(written, pct)
		if !open {
			cancel(ErrCancelRequested)
			return
		}
	}
}

// principalOf is the account and key an asynchronous request runs for.
func (s *Service) principalOf(ctx context.Context, r *Request) (Principal, error) {
	acct, err := s.cfg.Store.GetAccount(ctx, r.AccountID)
	if err != nil {
		return Principal{}, err
	}
	p := Principal{Account: acct, Key: &APIKey{ID: r.KeyID, AccountID: r.AccountID}}
	if r.KeyID != uuid.Nil {
		if k, err := s.cfg.Store.GetKey(ctx, r.KeyID); err == nil {
			p.Key = k
		}
	}
	return p, nil
}

// CancelRequest cancels the account's queued or running asynchronous request: it ends
// cancelled and its hold is released at once; the work, wherever it runs, is stopped
// (here at once, on another replica within the progress interval). A finished or
// synchronous request is CONFLICT naming its status; an unknown one NOT_FOUND.
func (s *Service) CancelRequest(ctx context.Context, p Principal, id uuid.UUID) (*Request, error) {
	body := EncodeError(E(CodeCancelled, "The request was cancelled."))
	r, err := s.cfg.Store.CancelRequest(ctx, p.Account.ID, id, body)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, E(CodeNotFound, "No request with this id exists.")
	case errors.Is(err, ErrConflict) && r != nil && !r.Async:
		return r, &Error{Code: CodeConflict, Message: "A synchronous request is cancelled by closing its connection.",
			Details: []Detail{{Field: "status", Message: string(r.Status)}}}
	case errors.Is(err, ErrConflict) && r != nil:
		return r, &Error{Code: CodeConflict, Message: fmt.Sprintf("The request has already ended (status %s).", r.Status),
			Details: []Detail{{Field: "status", Message: string(r.Status)}}}
	case err != nil:
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	if c, ok := s.running.Load(id); ok {
		c.(context.CancelCauseFunc)(ErrCancelRequested)
	}
	return r, nil
}

// requestEvent is the event of an asynchronous request that ended; cancelled requests
// announce nothing (their caller ended them). Its id is the request's, so announcing it
// again delivers it once.
func requestEvent(r *Request) (Event, bool) {
	if !r.Async || r.Open() {
		return Event{}, false
	}
	var t EventType
	switch r.Status {
	case RequestSucceeded:
		t = EventRequestSucceeded
	case RequestFailed:
		t = EventRequestFailed
	default:
		return Event{}, false
	}
	return Event{Type: t, AccountID: r.AccountID, ID: "msg_" + r.ID.String() + "_" + string(r.Status), At: *r.FinishedAt, Request: r}, true
}

// announce tells the account's webhook that r ended, if it is an asynchronous request.
func (s *Service) announce(ctx context.Context, r *Request) {
	if r == nil {
		return
	}
	if e, ok := requestEvent(r); ok {
		s.notify(ctx, e)
	}
}

// Running reports whether the request's work runs in this process now.
func (s *Service) Running(id uuid.UUID) bool {
	_, ok := s.running.Load(id)
	return ok
}
