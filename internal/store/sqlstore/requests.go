package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const requestCols = `id, account_id, operation, status, reservation_id, deadline, created_at, finished_at`

func scanRequest(r scanner, q *core.Request) error {
	var res uuid.NullUUID
	if err := r.Scan(&q.ID, &q.AccountID, &q.Operation, &q.Status, &res, timeScan{&q.Deadline},
		timeScan{&q.CreatedAt}, nullTimeScan{&q.FinishedAt}); err != nil {
		return err
	}
	q.ReservationID = res.UUID
	return nil
}

// BeginRequest holds price credits and stores r as their owner, in one transaction.
func (s *Store) BeginRequest(ctx context.Context, r *core.Request, price int64) error {
	return s.inTx(ctx, "begin request", func(tx querier) error {
		res, err := s.reserve(ctx, tx, r.AccountID, price, r.Operation, core.Owner{Kind: core.OwnerRequest, ID: r.ID})
		if err != nil {
			return err
		}
		r.ReservationID, r.CreatedAt = res.ID, res.CreatedAt
		_, err = tx.ExecContext(ctx, `INSERT INTO requests (`+requestCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)`,
			r.ID, r.AccountID, r.Operation, r.Status, uuid.NullUUID{UUID: r.ReservationID, Valid: true},
			s.t(r.Deadline), s.t(r.CreatedAt))
		return s.fail("begin request", err)
	})
}

// FinishRequest ends an open request and settles its hold in the same transaction.
func (s *Store) FinishRequest(ctx context.Context, id uuid.UUID, end core.RequestEnd) (*core.Request, error) {
	var out *core.Request
	err := s.inTx(ctx, "finish request", func(tx querier) error {
		r, err := s.requestByID(ctx, tx, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		if r.FinishedAt != nil {
			return fmt.Errorf("finish request: already %s: %w", r.Status, core.ErrConflict)
		}
		if err := s.endRequest(ctx, tx, r, end.Status); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// endRequest stores r's final status and settles its hold: charged when it succeeded,
// released otherwise.
func (s *Store) endRequest(ctx context.Context, tx querier, r *core.Request, status core.RequestStatus) error {
	now := s.clock()
	if _, err := tx.ExecContext(ctx, `UPDATE requests SET status = $1, finished_at = $2 WHERE id = $3`,
		status, s.t(now), r.ID); err != nil {
		return s.fail("finish request", err)
	}
	r.Status, r.FinishedAt = status, &now
	if r.ReservationID == uuid.Nil {
		return nil
	}
	if status == core.RequestSucceeded {
		return s.charge(ctx, tx, r.ReservationID)
	}
	_, err := s.release(ctx, tx, r.ReservationID)
	return err
}

// requestByID reads a request; lock is appended to the query (a dialect's locking clause).
func (s *Store) requestByID(ctx context.Context, q querier, id uuid.UUID, lock string) (*core.Request, error) {
	var r core.Request
	err := scanRequest(q.QueryRowContext(ctx, `SELECT `+requestCols+` FROM requests WHERE id = $1`+lock, id), &r)
	if err != nil {
		return nil, s.fail("get request", err)
	}
	return &r, nil
}

// GetRequest returns the account's request; another account's is ErrNotFound.
func (s *Store) GetRequest(ctx context.Context, account, id uuid.UUID) (*core.Request, error) {
	var r core.Request
	err := scanRequest(s.pool().QueryRowContext(ctx, `SELECT `+requestCols+` FROM requests WHERE id = $1 AND account_id = $2`,
		id, account), &r)
	if err != nil {
		return nil, s.fail("get request", err)
	}
	return &r, nil
}

// PruneRequests deletes requests finished before cutoff.
func (s *Store) PruneRequests(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := s.pool().ExecContext(ctx, `DELETE FROM requests WHERE finished_at IS NOT NULL AND finished_at < $1`, s.t(cutoff))
	if err != nil {
		return 0, s.fail("prune requests", err)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail("prune requests", err)
}
