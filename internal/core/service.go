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
	"sync"
	"time"

	"github.com/google/uuid"
)

// OutputQuality is the JPEG quality of generated images.
const OutputQuality = 88

// OutputTTL is how long a generated image link works (SPEC: 24 hours).
const OutputTTL = 24 * time.Hour

// Timeouts are the per-stage deadlines. A paid request's whole deadline is its stage's
// plus Inputs (Budget); the reconciler derives when a request is presumed dead from it.
type Timeouts struct {
	Generation time.Duration
	Scoring    time.Duration
	Title      time.Duration
	// Inputs bounds what a request does besides its stage: fetching and decoding its
	// images and storing its output; for a persona or style, saving its training images.
	Inputs time.Duration
}

// DefaultTimeouts are generous for the builtin engines and tight enough to free workers.
func DefaultTimeouts() Timeouts {
	return Timeouts{Generation: 60 * time.Second, Scoring: 10 * time.Second, Title: 30 * time.Second, Inputs: 60 * time.Second}
}

// DefaultSettleGrace is how long past its deadline an open request (or a persona's
// creation) waits before the reconciler takes its process for dead: room for the clocks
// of replicas to differ and for the last transaction to commit.
const DefaultSettleGrace = time.Minute

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
	// SettleGrace is added to a deadline before the reconciler presumes its owner dead
	// (0: DefaultSettleGrace).
	SettleGrace time.Duration
	// Requests queues asynchronous requests' jobs; without it Prefer: respond-async is
	// refused.
	Requests RequestQueue
	// Slots, when set, takes an in-flight slot of p's key (or account) for an asynchronous
	// request's run, as a synchronous request holds one; ok false when none is free.
	Slots func(ctx context.Context, p Principal) (release func(), ok bool, err error)
	// AsyncWait is how long an accepted asynchronous request may wait for its job (0:
	// DefaultAsyncWait); ProgressInterval how often a running one writes its progress and
	// checks for cancellation (0: DefaultProgressInterval).
	AsyncWait        time.Duration
	ProgressInterval time.Duration
	// AtStep, when set, is told each named step of paid work (Step*); tests use it to
	// stop the process there. Nil in production.
	AtStep func(step string)
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
	// running maps the ids of asynchronous requests running here to their work's cancel.
	running sync.Map
}

// NewService builds a service; missing optional parts get defaults.
func NewService(cfg ServiceConfig) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Prices == nil {
		cfg.Prices = DefaultPrices()
	}
	def := DefaultTimeouts()
	if cfg.Timeouts == (Timeouts{}) {
		cfg.Timeouts = def
	}
	if cfg.Timeouts.Inputs <= 0 {
		cfg.Timeouts.Inputs = def.Inputs
	}
	if cfg.SettleGrace <= 0 {
		cfg.SettleGrace = DefaultSettleGrace
	}
	if cfg.AsyncWait <= 0 {
		cfg.AsyncWait = DefaultAsyncWait
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
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
	s.Step(StepOutputRecorded)
	if err := s.cfg.Blobs.Put(ctx, key, buf.Bytes(), "image/jpeg"); err != nil {
		s.forgetOutput(context.WithoutCancel(ctx), rec)
		return "", fmt.Errorf("store output: %w", err)
	}
	s.Step(StepOutputStored)
	return s.cfg.Blobs.URL(ctx, key, expires)
}

// forgetOutput undoes an output whose Put failed. A Put can fail after the object was
// written (a timeout on the answer), so the blob is deleted too; the row goes only once
// the blob is surely gone, and otherwise stays, expired, for the sweep to retry.
func (s *Service) forgetOutput(ctx context.Context, rec Output) {
	if err := s.cfg.Blobs.Delete(ctx, rec.Key); err != nil && !errors.Is(err, ErrNotFound) {
		s.cfg.Logger.WarnContext(ctx, "delete failed output: left for the sweep", "key", rec.Key, "err", err)
		rec.ExpiresAt = s.cfg.Now()
		if err := s.cfg.Store.RecordOutput(ctx, rec); err != nil {
			s.cfg.Logger.ErrorContext(ctx, "expire failed output", "key", rec.Key, "err", err)
		}
		return
	}
	if err := s.cfg.Store.DeleteOutput(ctx, rec.Key); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "forget output", "key", rec.Key, "err", err)
	}
}

// SweepResult is what one output sweep did.
type SweepResult struct {
	Deleted int
	// Failed are the expired outputs whose blob or row could not be deleted: skipped, and
	// tried again by the next sweep.
	Failed []string
}

// SweepOutputs deletes outputs whose links expired. An output it cannot delete is logged,
// counted and skipped, so that every later expiry is still swept; it stays recorded, and
// the next sweep tries again. The error is the first failure, if any.
func (s *Service) SweepOutputs(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	var first error
	skip := map[string]bool{}
	for {
		// Ask for as many more as were skipped, so a batch always has new keys if any exist.
		keys, err := s.cfg.Store.ExpiredOutputs(ctx, s.cfg.Now(), sweepBatch+len(skip))
		if err != nil {
			return res, errors.Join(first, err)
		}
		fresh := 0
		for _, k := range keys {
			if skip[k] {
				continue
			}
			fresh++
			err := s.cfg.Blobs.Delete(ctx, k)
			if err == nil || errors.Is(err, ErrNotFound) {
				err = s.cfg.Store.DeleteOutput(ctx, k)
			}
			if err != nil {
				if ctx.Err() != nil {
					return res, errors.Join(first, ctx.Err())
				}
				s.cfg.Logger.WarnContext(ctx, "sweep: expired output not deleted, retried next sweep", "key", k, "err", err)
				skip[k] = true
				res.Failed = append(res.Failed, k)
				if first == nil {
					first = fmt.Errorf("sweep %s: %w", k, err)
				}
				continue
			}
			res.Deleted++
		}
		if fresh == 0 {
			return res, first
		}
	}
}

// sweepBatch is how many expired outputs one read of the sweep takes.
const sweepBatch = 500
