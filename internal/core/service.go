package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// OutputQuality is the JPEG quality of generated images.
const OutputQuality = 88

// OutputTTL is how long a generated image link works (SPEC: 24 hours).
const OutputTTL = 24 * time.Hour

// Timeouts are the per-stage deadlines.
type Timeouts struct {
	Generation time.Duration
	Scoring    time.Duration
	Title      time.Duration
}

// DefaultTimeouts are generous for the builtin engines and tight enough to free workers.
func DefaultTimeouts() Timeouts {
	return Timeouts{Generation: 60 * time.Second, Scoring: 10 * time.Second, Title: 30 * time.Second}
}

// ServiceConfig wires the service to its parts.
type ServiceConfig struct {
	Store    Store
	Blobs    Blobs
	Engine   Engine
	Swapper  FaceSwapper
	Titler   Titler
	Policy   ContentPolicy
	Images   ImageLoader
	Prices   Prices
	Timeouts Timeouts
	Logger   *slog.Logger
	Now      func() time.Time
	// Encode writes an output image as JPEG; nil uses image/jpeg at OutputQuality.
	Encode func(w io.Writer, img image.Image) error
	// OnCharge is told of every settled charge (for metrics); may be nil.
	OnCharge func(op string, amount int64)
	// Jobs queues persona and style training; Training reads v1 zips; Faces checks that
	// a persona's images show a face. Without Jobs, training is refused.
	Jobs     TrainingQueue
	Training TrainingReader
	Faces    FaceDetector
	// Reserve, when set, takes n bytes of the process's memory budget for a render,
	// waiting in line; its error is TOO_MANY_REQUESTS when the wait ends (internal/memory).
	Reserve func(ctx context.Context, n int64) (release func(), err error)
	// Events announces what accounts' webhooks are told of; nil announces nothing.
	Events Events
}

// Validate reports a missing part.
func (c *ServiceConfig) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("service: no store")
	case c.Blobs == nil:
		return errors.New("service: no blob store")
	case c.Engine == nil:
		return errors.New("service: no engine")
	case c.Images == nil:
		return errors.New("service: no image loader")
	}
	return nil
}

// Service orchestrates paid work: it checks inputs against the domain, reserves credits,
// runs the work under its stage deadline, stores the output and settles the charge.
type Service struct {
	cfg ServiceConfig
}

// NewService builds a service; missing optional parts get defaults.
func NewService(cfg ServiceConfig) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Prices == nil {
		cfg.Prices = DefaultPrices()
	}
	if cfg.Timeouts == (Timeouts{}) {
		cfg.Timeouts = DefaultTimeouts()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Encode == nil {
		cfg.Encode = func(w io.Writer, img image.Image) error {
			return jpeg.Encode(w, img, &jpeg.Options{Quality: OutputQuality})
		}
	}
	return &Service{cfg: cfg}, nil
}

// Store returns the service's store.
func (s *Service) Store() Store { return s.cfg.Store }

// Blobs returns the service's blob store.
func (s *Service) Blobs() Blobs { return s.cfg.Blobs }

// Now returns the service clock's time.
func (s *Service) Now() time.Time { return s.cfg.Now() }

// paid runs work for op under a credit reservation: charged on success, released on any
// failure (including cancellation and timeouts).
func (s *Service) paid(ctx context.Context, p Principal, op string, work func(context.Context) error) error {
	price, ok := s.cfg.Prices.Price(op)
	if !ok {
		return Wrap(CodeInternal, fmt.Errorf("no price for %q", op), "The service is misconfigured.")
	}
	ctx = withOperation(ctx, op)
	res, err := s.cfg.Store.Reserve(ctx, p.Account.ID, price, op)
	switch {
	case errors.Is(err, ErrInsufficient):
		return E(CodeInsufficientCredits, "The account's balance of credits cannot cover this request (price %d).", price)
	case errors.Is(err, ErrPaymentFailed):
		return E(CodeSmartBalanceFailed, "Automatic top-up is blocked by a failed or unpaid top-up invoice.")
	case err != nil:
		return Wrap(CodeInternal, err, "Internal error.")
	}
	if err := work(ctx); err != nil {
		s.release(ctx, res.ID)
		return s.stageError(ctx, err)
	}
	if err := s.cfg.Store.Charge(context.WithoutCancel(ctx), res.ID); err != nil {
		s.release(ctx, res.ID)
		return Wrap(CodeInternal, err, "Internal error.")
	}
	if s.cfg.OnCharge != nil {
		s.cfg.OnCharge(op, price)
	}
	return nil
}

func (s *Service) release(ctx context.Context, id uuid.UUID) {
	if err := s.cfg.Store.Release(context.WithoutCancel(ctx), id); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "release reservation", "reservation", id, "err", err)
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

// storeOutput encodes img as JPEG, stores it as an output and returns its signed URL.
func (s *Service) storeOutput(ctx context.Context, p Principal, img image.Image) (string, error) {
	var buf bytes.Buffer
	buf.Grow(256 << 10)
	if err := s.cfg.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("encode output: %w", err)
	}
	now := s.cfg.Now()
	id := RequestID(ctx)
	if id == "" {
		id = uuid.NewString()
	}
	key := fmt.Sprintf("outputs/%s/%s.jpg", now.UTC().Format("2006/01/02"), id)
	expires := now.Add(OutputTTL)
	// The record goes first: a process killed between the two steps leaves a record whose
	// blob is missing (the sweep deletes both), never a blob that nothing refers to.
	rec := Output{Key: key, AccountID: p.Account.ID, RequestID: RequestID(ctx), Operation: operationOf(ctx), ExpiresAt: expires}
	if err := s.cfg.Store.RecordOutput(ctx, rec); err != nil {
		return "", fmt.Errorf("record output: %w", err)
	}
	if err := s.cfg.Blobs.Put(ctx, key, buf.Bytes(), "image/jpeg"); err != nil {
		if derr := s.cfg.Store.DeleteOutput(context.WithoutCancel(ctx), key); derr != nil {
			s.cfg.Logger.ErrorContext(ctx, "forget output", "key", key, "err", derr)
		}
		return "", fmt.Errorf("store output: %w", err)
	}
	return s.cfg.Blobs.URL(ctx, key, expires)
}

// SweepOutputs deletes outputs whose links expired; it returns how many it deleted.
func (s *Service) SweepOutputs(ctx context.Context) (int, error) {
	n := 0
	for {
		keys, err := s.cfg.Store.ExpiredOutputs(ctx, s.cfg.Now(), 500)
		if err != nil || len(keys) == 0 {
			return n, err
		}
		for _, k := range keys {
			if err := s.cfg.Blobs.Delete(ctx, k); err != nil && !errors.Is(err, ErrNotFound) {
				return n, err
			}
			if err := s.cfg.Store.DeleteOutput(ctx, k); err != nil {
				return n, err
			}
			n++
		}
	}
}
