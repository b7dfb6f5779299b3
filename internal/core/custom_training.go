package core

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrTrainingFinished means a training step found its record no longer processing: the
// job already completed or failed (a retried or duplicate run), so it must stop.
var ErrTrainingFinished = errors.New("training already finished")

// TrainingResult is what a finished training job stores.
type TrainingResult struct {
	// Params is the learned StyleParams or PersonaParams, as JSON.
	Params        string
	PortraitKey   string
	ReferenceKeys []string
}

// PortraitTTL is how long a v1 temp_portrait_url works after training completes.
const PortraitTTL = 12 * time.Hour

// TrainingRecord returns a record for its job: ErrNotFound when it was deleted,
// ErrTrainingFinished when it no longer trains.
func (s *Service) TrainingRecord(ctx context.Context, id uuid.UUID) (*CustomModel, error) {
	m, err := s.cfg.Store.CustomModelByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.Status != StatusProcessing {
		return m, ErrTrainingFinished
	}
	if SourcePending(m) {
		// Its creation is still saving the inputs, or died doing so (the reconciler then
		// fails the record): either way, a retry finds out.
		return m, ErrSourcePending
	}
	return m, nil
}

// ErrSourcePending means a training job found its record's inputs not saved yet.
var ErrSourcePending = errors.New("training images not saved yet")

// TrainingStage records the stage and progress of a processing record. Progress never
// moves backwards, so a retried job does not make a client's progress bar jump back.
func (s *Service) TrainingStage(ctx context.Context, id uuid.UUID, stage Stage, progress int) error {
	_, err := s.cfg.Store.UpdateCustomModel(ctx, id, func(m *CustomModel) error {
		if m.Status != StatusProcessing {
			return ErrTrainingFinished
		}
		m.Stage = stage
		m.Progress = max(m.Progress, min(progress, 99))
		return nil
	})
	return err
}

// CompleteTraining marks the record completed and charges its hold, in one store
// transaction (FinishTraining). The record's state is checked in that transaction, so a
// job run twice completes and charges once; a failed record is ErrTrainingFinished.
func (s *Service) CompleteTraining(ctx context.Context, id uuid.UUID, res TrainingResult) error {
	m, charged, err := s.cfg.Store.FinishTraining(ctx, id, func(m *CustomModel) error {
		if m.Status == StatusCompleted {
			return errAlreadyCompleted
		}
		if m.Status != StatusProcessing {
			return ErrTrainingFinished
		}
		now := s.cfg.Now()
		m.Status, m.Stage, m.Progress = StatusCompleted, StageReady, 100
		m.Params, m.PortraitKey, m.ReferenceKeys = res.Params, res.PortraitKey, res.ReferenceKeys
		m.CompletedAt = &now
		return nil
	})
	if errors.Is(err, errAlreadyCompleted) {
		// Completed and charged by a concurrent run; announced again all the same (a run
		// that died before announcing): the event's id is the record's, so it is
		// delivered once.
		m, err = s.cfg.Store.CustomModelByID(ctx, id)
	}
	if err != nil {
		return err
	}
	s.Step(StepTrainingDone)
	s.notify(ctx, customEvent(EventCustomCompleted, m))
	if charged && s.cfg.OnCharge != nil {
		price, _ := s.cfg.Prices.Price(OpTraining)
		s.cfg.OnCharge(OpTraining, price)
	}
	return nil
}

var errAlreadyCompleted = errors.New("training already completed")

// FailTraining marks a processing record failed with a public reason and releases its
// hold in the same transaction, then deletes its blobs (a failed record is of no use). A
// finished record is left alone.
func (s *Service) FailTraining(ctx context.Context, id uuid.UUID, reason string) error {
	m, _, err := s.cfg.Store.FinishTraining(ctx, id, func(m *CustomModel) error {
		if m.Status != StatusProcessing {
			return ErrTrainingFinished
		}
		m.Status, m.Stage, m.FailReason = StatusFailed, StageFailed, reason
		return nil
	})
	if errors.Is(err, ErrTrainingFinished) || errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	s.notify(ctx, customEvent(EventCustomFailed, m))
	s.deleteKeys(ctx, RecordKeys(m))
	return nil
}
