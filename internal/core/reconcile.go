package core

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// reconcileBatch is how many holds one read of the reconciler takes.
const reconcileBatch = 200

// ReasonInterrupted is the fail reason of a persona or style whose creation died before
// its training images were saved.
const ReasonInterrupted = "Training could not start: the server stopped while saving the training images."

// ReconcileResult counts what one pass of the reconciler did.
type ReconcileResult struct {
	Charged  int // holds kept: the work was delivered
	Released int // holds given back: the owner failed or is gone
	Expired  int // owners taken for dead (past their deadline), failed, and their holds given back
	Kept     int // holds whose owner is still at work
}

// Reconcile settles every credit hold whose owner is finished or gone: charged when the
// work was delivered (request succeeded, record completed), released when not (owner
// missing or failed; a request still running, or a persona still saving its inputs, past
// its deadline plus the settle grace is first marked failed). exclusive says that no
// other process can be doing paid work on this store (SQLite at start, its data
// directory locked): every open owner then belongs to a dead process, whatever its
// deadline. Each hold settles in its own transaction under row locks, so any number of
// replicas may reconcile at once; a failure is logged and counted and the pass goes on.
func (s *Service) Reconcile(ctx context.Context, exclusive bool) (ReconcileResult, error) {
	var res ReconcileResult
	var errs []error
	after := uuid.Nil
	for {
		holds, err := s.cfg.Store.HeldReservations(ctx, after, reconcileBatch)
		if err != nil {
			return res, errors.Join(append(errs, err)...)
		}
		for _, h := range holds {
			after = h.ID
			now := s.cfg.Now()
			if s.Settlement(h, now, exclusive).Action == HoldKeep {
				res.Kept++
				continue
			}
			got, err := s.cfg.Store.SettleHold(ctx, h.ID, func(h Hold) Settlement { return s.Settlement(h, now, exclusive) })
			if err != nil {
				s.cfg.Logger.ErrorContext(ctx, "settle credit hold", "reservation", h.ID, "err", err)
				errs = append(errs, err)
				continue
			}
			s.settled(ctx, h, got, &res)
		}
		if len(holds) < reconcileBatch {
			return res, errors.Join(errs...)
		}
	}
}

// Settlement decides what to do with a hold at now: the reconciler's rules, applied again
// by the store under lock.
func (s *Service) Settlement(h Hold, now time.Time, exclusive bool) Settlement {
	gone := func(deadline time.Time) bool { return exclusive || now.After(deadline.Add(s.cfg.SettleGrace)) }
	keep, charge, release := Settlement{Action: HoldKeep}, Settlement{Action: HoldCharge}, Settlement{Action: HoldRelease}
	switch h.Owner.Kind {
	case OwnerRequest:
		r := h.Request
		switch {
		case r == nil:
			return release
		case r.Status == RequestSucceeded:
			return charge
		case r.FinishedAt != nil:
			return release
		case r.Async && now.After(r.Deadline.Add(s.cfg.SettleGrace)):
			// An asynchronous request survives a restart (its job runs again), so only its
			// deadline says it is lost: queued past its wait, or running past its budget.
			return Settlement{Action: HoldExpire, Error: lostError}
		case r.Async:
			return keep
		case r.Status == RequestRunning && gone(r.Deadline):
			return Settlement{Action: HoldExpire, Error: lostError}
		case r.Status != RequestRunning && now.After(r.Deadline.Add(s.cfg.SettleGrace)):
			// A state this code does not run itself: only its deadline says it is lost.
			return Settlement{Action: HoldExpire, Error: lostError}
		}
		return keep
	case OwnerCustomModel:
		m := h.Custom
		switch {
		case m == nil:
			return release
		case m.Status == StatusCompleted:
			return charge
		case m.Status != StatusProcessing:
			return release
		case SourcePending(m) && gone(m.CreatedAt.Add(s.cfg.Timeouts.Inputs)):
			// Training runs on the job queue, which retries it after a crash; only a
			// creation that died before its inputs were saved has nothing to retry.
			return Settlement{Action: HoldExpire, Reason: ReasonInterrupted}
		}
		return keep
	}
	// A hold from before owners were recorded: its request is over once the longest
	// request could be.
	if gone(h.CreatedAt.Add(s.cfg.Timeouts.longest())) {
		return release
	}
	return keep
}

// settled counts and logs one settlement, and deletes the blobs of a record it failed.
func (s *Service) settled(ctx context.Context, h Hold, got Settlement, res *ReconcileResult) {
	log := s.cfg.Logger.With("reservation", h.ID, "account", h.AccountID, "operation", h.Operation,
		"amount", h.Amount, "owner", h.Owner.Kind, "owner_id", h.Owner.ID)
	switch got.Action {
	case HoldKeep:
		res.Kept++ // settled meanwhile by its owner or another replica
	case HoldCharge:
		res.Charged++
		log.WarnContext(ctx, "charged a credit hold whose owner delivered and was gone")
		if s.cfg.OnCharge != nil {
			s.cfg.OnCharge(h.Operation, h.Amount)
		}
	case HoldRelease:
		res.Released++
		log.WarnContext(ctx, "released a credit hold whose owner failed or is gone")
	case HoldExpire:
		res.Expired++
		log.WarnContext(ctx, "owner of a credit hold outlived its deadline: failed, hold released")
		if h.Owner.Kind == OwnerRequest && h.Request != nil && h.Request.Async {
			if r, err := s.cfg.Store.RequestByID(ctx, h.Owner.ID); err == nil {
				s.announce(ctx, r)
			}
		}
		if h.Owner.Kind == OwnerCustomModel {
			if m, err := s.cfg.Store.CustomModelByID(ctx, h.Owner.ID); err == nil {
				s.deleteKeys(ctx, RecordKeys(m))
			}
		}
	}
}
