package core

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/google/uuid"
)

// Steps of paid work, named so that a test can stop the process at each one
// (ServiceConfig.AtStep) and check that the credits settle after a restart. The matrix of
// paths and steps is in docs/BENCHMARKS.md.
const (
	StepReserved       = "reserved"        // request stored, credits held
	StepOutputRecorded = "output-recorded" // the output's row stored, its blob not yet
	StepOutputStored   = "output-stored"   // the output's blob stored
	StepWorked         = "worked"          // the work is done, not yet settled
	StepSettled        = "settled"         // succeeded and charged; the answer not yet sent
	StepCustomCreated  = "custom-created"  // record stored with its hold, inputs not saved
	StepCustomBlob     = "custom-blob"     // the first training input stored
	StepCustomSaved    = "custom-saved"    // inputs saved, the job not yet queued
	StepCustomQueued   = "custom-queued"   // job queued, the answer not yet sent
	StepTrainingLoaded = "training-loaded" // a job read its record and inputs
	StepTrainingStored = "training-stored" // a job stored what it made, record not completed
	StepTrainingDone   = "training-done"   // record completed and charged
)

// Steps lists every step, in the order a request or training meets them.
var Steps = []string{StepReserved, StepOutputRecorded, StepOutputStored, StepWorked, StepSettled,
	StepCustomCreated, StepCustomBlob, StepCustomSaved, StepCustomQueued,
	StepTrainingLoaded, StepTrainingStored, StepTrainingDone}

// Step tells the test hook, if any, that paid work reached step.
func (s *Service) Step(step string) {
	if s.cfg.AtStep != nil {
		s.cfg.AtStep(step)
	}
}

// stage is the deadline, timeout code and message of an operation's main stage.
func (t Timeouts) stage(op string) (time.Duration, Code, string) {
	switch op {
	case OpTitle:
		return t.Title, CodeTitleTimeout, "Title generation timed out."
	case OpScore:
		return t.Scoring, CodeScoringTimeout, "Scoring timed out."
	}
	return t.Generation, CodeGenerationTimeout, "Generation timed out."
}

// Budget is how long a paid request of op may take in all: reading its inputs and storing
// its output (Inputs) plus its stage deadline. Its work runs under this deadline, so a
// request still running past it belongs to a process that is gone.
func (t Timeouts) Budget(op string) time.Duration {
	d, _, _ := t.stage(op)
	return t.Inputs + d
}

// Longest is the largest budget of any operation: asynchronous requests' jobs get more.
func (t Timeouts) Longest() time.Duration { return t.longest() }

// longest is the largest budget of any operation.
func (t Timeouts) longest() time.Duration {
	return t.Inputs + max(t.Generation, t.Scoring, t.Title)
}

// paid runs work for op as a recorded request that owns a credit hold: charged with the
// request's success in one transaction, released on any failure (including cancellation
// and timeouts). The work runs under the request's deadline (Timeouts.Budget). The
// request keeps its answer: result's body on success, the public error otherwise. An
// asynchronous request's row exists already (RunRequest started it); a synchronous one's
// is created here with its hold.
func (s *Service) paid(ctx context.Context, p Principal, op string, work func(context.Context) error, result func() any) error {
	price, ok := s.cfg.Prices.Price(op)
	if !ok {
		return Wrap(CodeInternal, fmt.Errorf("no price for %q", op), "The service is misconfigured.")
	}
	ctx = withOperation(ctx, op)
	budget := s.cfg.Timeouts.Budget(op)
	started := startedRequest(ctx)
	var id uuid.UUID
	if started != nil {
		id = started.ID
	} else {
		var err error
		if id, err = uuid.Parse(RequestID(ctx)); err != nil {
			id = uuid.Must(uuid.NewV7())
			ctx = WithRequestID(ctx, id.String())
		}
		req := &Request{ID: id, AccountID: p.Account.ID, Operation: op, Status: RequestRunning,
			Deadline: s.cfg.Now().Add(budget), KeyID: keyID(p)}
		if err := s.cfg.Store.BeginRequest(ctx, req, price); err != nil {
			return holdError(err, price)
		}
	}
	s.Step(StepReserved)
	wctx, cancel := context.WithTimeout(ctx, budget)
	err := work(wctx)
	expired := ctx.Err() == nil && wctx.Err() == context.DeadlineExceeded
	cancel()
	if err != nil {
		if started != nil && interrupted(ctx) {
			// The queue stopped the job (shutdown): the request stays open and its job
			// runs again.
			return &errInterrupted{err}
		}
		if expired {
			_, code, msg := s.cfg.Timeouts.stage(op)
			err = Wrap(code, err, "%s", msg)
		} else {
			err = s.stageError(ctx, err)
		}
		s.finish(ctx, id, RequestEnd{Status: RequestFailed, Error: EncodeError(err)})
		return err
	}
	s.Step(StepWorked)
	body, err := encodeJSON(result())
	if err != nil {
		err = Wrap(CodeInternal, err, "Internal error.")
		s.finish(ctx, id, RequestEnd{Status: RequestFailed, Error: EncodeError(err)})
		return err
	}
	if _, err := s.cfg.Store.FinishRequest(context.WithoutCancel(ctx), id, RequestEnd{Status: RequestSucceeded, Result: body}); err != nil {
		if errors.Is(err, ErrConflict) {
			if started != nil {
				// Cancelled while it ran: nothing is charged.
				return Wrap(CodeCancelled, err, "The request was cancelled.")
			}
			// The reconciler ended it first: the request outlived its deadline and was taken
			// for one whose process had died, so nothing is charged.
			_, code, msg := s.cfg.Timeouts.stage(op)
			return Wrap(code, err, "%s", msg)
		}
		err = Wrap(CodeInternal, err, "Internal error.")
		s.finish(ctx, id, RequestEnd{Status: RequestFailed, Error: EncodeError(err)})
		return err
	}
	s.Step(StepSettled)
	if s.cfg.OnCharge != nil {
		s.cfg.OnCharge(op, price)
	}
	return nil
}

// keyID is the principal's API key id (none for work without a key).
func keyID(p Principal) uuid.UUID {
	if p.Key == nil {
		return uuid.Nil
	}
	return p.Key.ID
}

// holdError is the public error of a failed credit hold.
func holdError(err error, price int64) error {
	switch {
	case errors.Is(err, ErrInsufficient):
		return E(CodeInsufficientCredits, "The account's balance of credits cannot cover this request (price %d).", price)
	case errors.Is(err, ErrPaymentFailed):
		return E(CodeSmartBalanceFailed, "Automatic top-up is blocked by a failed or unpaid top-up invoice.")
	}
	return Wrap(CodeInternal, err, "Internal error.")
}

// finish ends a request that failed; if that fails too, the reconciler ends it once its
// deadline has passed. A request already ended (cancelled meanwhile) is left as it is.
func (s *Service) finish(ctx context.Context, id uuid.UUID, end RequestEnd) {
	_, err := s.cfg.Store.FinishRequest(context.WithoutCancel(ctx), id, end)
	if err != nil && !errors.Is(err, ErrConflict) {
		s.cfg.Logger.ErrorContext(ctx, "finish request", "request", id, "status", end.Status, "err", err)
	}
}

// stageError turns a failure of paid work into its public error: the client going away is
// CANCELLED; a stage deadline keeps its stage's code; the rest keep their public code or
// become GENERATION_FAILED.
func (s *Service) stageError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return Wrap(CodeCancelled, err, "The request was cancelled by the client.")
	}
	if e := AsError(err); e != nil {
		return e
	}
	var st *stageTimeout
	if errors.As(err, &st) {
		return Wrap(st.code, err, "%s", st.msg)
	}
	return Wrap(CodeGenerationFailed, err, "Generation failed.")
}

// stageTimeout marks a stage deadline that expired.
type stageTimeout struct {
	code Code
	msg  string
	err  error
}

func (t *stageTimeout) Error() string { return t.msg + ": " + t.err.Error() }
func (t *stageTimeout) Unwrap() error { return t.err }

// withStage runs fn under the stage deadline d; its expiry becomes code.
func withStage[T any](ctx context.Context, d time.Duration, code Code, msg string, fn func(context.Context) (T, error)) (T, error) {
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := fn(sctx)
	if err != nil && ctx.Err() == nil && sctx.Err() == context.DeadlineExceeded {
		var zero T
		if e := AsError(err); e != nil && e.Code != CodeInternal && e.Code != CodeGenerationFailed {
			return zero, err
		}
		return zero, &stageTimeout{code: code, msg: msg, err: err}
	}
	return v, err
}

// generate runs render under the generation deadline and stores its image as an output,
// returning the output's signed URL.
func (s *Service) generate(ctx context.Context, p Principal, f Format, render func(context.Context) (image.Image, error)) (string, error) {
	release := func() {}
	defer func() { release() }() // held through the encode too: the frame lives until then
	img, err := withStage(ctx, s.cfg.Timeouts.Generation, CodeGenerationTimeout, "Generation timed out.",
		func(ctx context.Context) (image.Image, error) {
			if s.cfg.Reserve != nil {
				r, err := s.cfg.Reserve(ctx, RenderMemory(f))
				if err != nil {
					return nil, err
				}
				release = r
			}
			return render(ctx)
		})
	if err != nil {
		return "", err
	}
	return s.storeOutput(ctx, p, img)
}

// RenderMemory is what one render of format f is counted to hold at its peak: six frames
// of the output's size (the builtin engine allocates at most 4.5 for mdl_4_5, candidates and
// scoring included); without a format, a 1920x1080 frame (v1 edits keep the input's aspect).
func RenderMemory(f Format) int64 {
	w, h, ok := f.Size()
	if !ok {
		w, h = 1920, 1080
	}
	return 6 * 4 * int64(w) * int64(h)
}
