package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const reservationCols = `id, account_id, amount, operation, state, owner_kind, owner_id, created_at`

func scanReservation(r scanner, v *core.Reservation) error {
	var owner uuid.NullUUID
	if err := r.Scan(&v.ID, &v.AccountID, &v.Amount, &v.Operation, &v.State, &v.Owner.Kind, &owner,
		timeScan{&v.CreatedAt}); err != nil {
		return err
	}
	v.Owner.ID = owner.UUID
	return nil
}

// HeldReservations returns up to limit held reservations after the given id, with their
// owners.
func (s *Store) HeldReservations(ctx context.Context, after uuid.UUID, limit int) ([]core.Hold, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT `+reservationCols+` FROM reservations
		WHERE state = $1 AND id > $2 ORDER BY id LIMIT $3`, core.ReservationHeld, after, limit)
	if err != nil {
		return nil, s.fail("held reservations", err)
	}
	var out []core.Hold
	for rows.Next() {
		var h core.Hold
		if err := scanReservation(rows, &h.Reservation); err != nil {
			rows.Close()
			return nil, s.fail("held reservations", err)
		}
		out = append(out, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fail("held reservations", err)
	}
	for i := range out {
		if _, err := s.loadOwner(ctx, s.pool(), &out[i], ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadOwner reads h's owner into h (nil when it does not exist). With lock set (a
// dialect's SkipLocked clause) the owner's row is locked; busy reports that another
// transaction holds it.
func (s *Store) loadOwner(ctx context.Context, q querier, h *core.Hold, lock string) (busy bool, err error) {
	id := h.Owner.ID
	switch h.Owner.Kind {
	case core.OwnerRequest:
		h.Request, err = s.requestByID(ctx, q, id, lock)
	case core.OwnerCustomModel:
		h.Custom, err = s.customByID(ctx, q, id, lock)
	default:
		return false, nil
	}
	if !errors.Is(err, core.ErrNotFound) {
		return false, err
	}
	if lock == "" {
		return false, nil
	}
	// SKIP LOCKED returns no row for a locked one too: tell the two apart.
	table := map[core.OwnerKind]string{core.OwnerRequest: "requests", core.OwnerCustomModel: "custom_models"}[h.Owner.Kind]
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE id = $1`, id).Scan(&n); err != nil {
		return false, s.fail("hold owner", err)
	}
	return n > 0, nil
}

// SettleHold re-reads a hold and its owner under lock and applies decide's settlement.
func (s *Store) SettleHold(ctx context.Context, id uuid.UUID, decide func(core.Hold) core.Settlement) (core.Settlement, error) {
	keep := core.Settlement{Action: core.HoldKeep}
	out := keep
	err := s.inTx(ctx, "settle hold", func(tx querier) error {
		var h core.Hold
		err := scanReservation(tx.QueryRowContext(ctx, `SELECT `+reservationCols+` FROM reservations WHERE id = $1`, id), &h.Reservation)
		if err != nil {
			return s.fail("settle hold", err)
		}
		if h.State != core.ReservationHeld {
			return nil
		}
		// The owner's row is locked before the hold's: the order of every writer of both.
		busy, err := s.loadOwner(ctx, tx, &h, s.d.SkipLocked)
		if err != nil || busy {
			return err
		}
		var state core.ReservationState
		err = tx.QueryRowContext(ctx, `SELECT state FROM reservations WHERE id = $1`+s.d.SkipLocked, id).Scan(&state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil // another settler holds it
		case err != nil:
			return s.fail("settle hold", err)
		case state != core.ReservationHeld:
			return nil
		}
		set := decide(h)
		switch set.Action {
		case core.HoldCharge:
			err = s.charge(ctx, tx, id)
		case core.HoldRelease:
			_, err = s.release(ctx, tx, id)
		case core.HoldExpire:
			err = s.expireOwner(ctx, tx, h, set)
		default:
			return nil
		}
		if err != nil {
			return err
		}
		out = set
		return nil
	})
	if err != nil {
		return keep, err
	}
	return out, nil
}

// expireOwner ends a hold's owner as failed, its process being gone, and releases the hold.
func (s *Store) expireOwner(ctx context.Context, tx querier, h core.Hold, set core.Settlement) error {
	switch {
	case h.Request != nil && h.Request.FinishedAt == nil:
		return s.endRequest(ctx, tx, h.Request, core.RequestEnd{Status: core.RequestFailed, Error: set.Error})
	case h.Custom != nil && h.Custom.Status == core.StatusProcessing:
		_, err := tx.ExecContext(ctx, `UPDATE custom_models SET status = $1, stage = $2, fail_reason = $3 WHERE id = $4`,
			core.StatusFailed, core.StageFailed, set.Reason, h.Custom.ID)
		if err != nil {
			return s.fail("expire custom model", err)
		}
	}
	_, err := s.release(ctx, tx, h.ID)
	return err
}

// settleCustom settles the hold of a record that an update moved out of processing:
// charged when it completed, released when it failed. A hold already settled is left
// alone; charged reports that this call charged it.
func (s *Store) settleCustom(ctx context.Context, tx querier, before core.Status, m *core.CustomModel) (charged bool, err error) {
	if before != core.StatusProcessing || m.Status == core.StatusProcessing || m.ReservationID == nil {
		return false, nil
	}
	if m.Status == core.StatusCompleted {
		err := s.charge(ctx, tx, *m.ReservationID)
		if errors.Is(err, core.ErrConflict) || errors.Is(err, core.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if _, err := s.release(ctx, tx, *m.ReservationID); err != nil && !errors.Is(err, core.ErrNotFound) {
		return false, fmt.Errorf("settle training hold: %w", err)
	}
	return false, nil
}
