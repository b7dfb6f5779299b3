package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// requestCols are the columns every read of a request takes; params, which may be large,
// is read by StartRequest alone.
const requestCols = `id, account_id, operation, status, reservation_id, deadline, created_at, finished_at,
	async, key_id, progress, result, error`

func scanRequest(r scanner, q *core.Request, extra ...any) error {
	var res, key uuid.NullUUID
	dest := append([]any{&q.ID, &q.AccountID, &q.Operation, &q.Status, &res, timeScan{&q.Deadline},
		timeScan{&q.CreatedAt}, nullTimeScan{&q.FinishedAt}, &q.Async, &key, &q.Progress, &q.Result, &q.Error}, extra...)
	if err := r.Scan(dest...); err != nil {
		return err
	}
	q.ReservationID, q.KeyID = res.UUID, key.UUID
	return nil
}

// nullUUID is a UUID argument stored as NULL when zero.
func nullUUID(id uuid.UUID) uuid.NullUUID { return uuid.NullUUID{UUID: id, Valid: id != uuid.Nil} }

// BeginRequest holds price credits and stores r as their owner, in one transaction.
func (s *Store) BeginRequest(ctx context.Context, r *core.Request, price int64) error {
	return s.inTx(ctx, "begin request", func(tx querier) error {
		res, err := s.reserve(ctx, tx, r.AccountID, price, r.Operation, core.Owner{Kind: core.OwnerRequest, ID: r.ID})
		if err != nil {
			return err
		}
		r.ReservationID, r.CreatedAt = res.ID, res.CreatedAt
		_, err = tx.ExecContext(ctx, `INSERT INTO requests (id, account_id, operation, status, reservation_id, deadline,
			created_at, finished_at, async, key_id, progress, params) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, 0, $10)`,
			r.ID, r.AccountID, r.Operation, r.Status, nullUUID(r.ReservationID), s.t(r.Deadline), s.t(r.CreatedAt),
			r.Async, nullUUID(r.KeyID), r.Params)
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
		if err := s.endRequest(ctx, tx, r, end); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// endRequest stores r's end (status, answer; its input is dropped) and settles its hold:
// charged when it succeeded, released otherwise.
func (s *Store) endRequest(ctx context.Context, tx querier, r *core.Request, end core.RequestEnd) error {
	now := s.clock()
	progress := r.Progress
	if end.Status == core.RequestSucceeded {
		progress = 100
	}
	if _, err := tx.ExecContext(ctx, `UPDATE requests SET status = $1, finished_at = $2, progress = $3, result = $4,
		error = $5, params = NULL WHERE id = $6`, end.Status, s.t(now), progress, end.Result, end.Error, r.ID); err != nil {
		return s.fail("finish request", err)
	}
	r.Status, r.FinishedAt, r.Progress, r.Result, r.Error = end.Status, &now, progress, end.Result, end.Error
	if r.ReservationID == uuid.Nil {
		return nil
	}
	if end.Status == core.RequestSucceeded {
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

// RequestByID returns a request whoever owns it.
func (s *Store) RequestByID(ctx context.Context, id uuid.UUID) (*core.Request, error) {
	return s.requestByID(ctx, s.pool(), id, "")
}

// StartRequest marks an open asynchronous request running under a new deadline.
func (s *Store) StartRequest(ctx context.Context, id uuid.UUID, deadline time.Time) (*core.Request, error) {
	var out *core.Request
	err := s.inTx(ctx, "start request", func(tx querier) error {
		var r core.Request
		err := scanRequest(tx.QueryRowContext(ctx, `SELECT `+requestCols+`, params FROM requests WHERE id = $1`+s.d.ForUpdate, id),
			&r, &r.Params)
		if err != nil {
			return s.fail("start request", err)
		}
		out = &r
		if r.FinishedAt != nil {
			return fmt.Errorf("start request: already %s: %w", r.Status, core.ErrConflict)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE requests SET status = $1, deadline = $2 WHERE id = $3`,
			core.RequestRunning, s.t(deadline), id); err != nil {
			return s.fail("start request", err)
		}
		r.Status, r.Deadline = core.RequestRunning, deadline.UTC().Truncate(time.Microsecond)
		return nil
	})
	return out, err
}

// CancelRequest ends the account's open asynchronous request as cancelled.
func (s *Store) CancelRequest(ctx context.Context, account, id uuid.UUID, errBody []byte) (*core.Request, error) {
	var out *core.Request
	err := s.inTx(ctx, "cancel request", func(tx querier) error {
		r, err := s.requestByID(ctx, tx, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		if r.AccountID != account {
			return fmt.Errorf("cancel request: %w", core.ErrNotFound)
		}
		out = r
		if r.FinishedAt != nil || !r.Async {
			return fmt.Errorf("cancel request: %s: %w", r.Status, core.ErrConflict)
		}
		return s.endRequest(ctx, tx, r, core.RequestEnd{Status: core.RequestCancelled, Error: errBody})
	})
	return out, err
}

// TouchRequest records a running request's progress and reports whether it is open.
func (s *Store) TouchRequest(ctx context.Context, id uuid.UUID, progress int) (bool, error) {
	if progress < 0 {
		var n int
		err := s.pool().QueryRowContext(ctx, `SELECT COUNT(*) FROM requests WHERE id = $1 AND finished_at IS NULL`, id).Scan(&n)
		return n > 0, s.fail("touch request", err)
	}
	progress = min(progress, 100)
	var open bool
	err := s.inTx(ctx, "touch request", func(tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE requests SET progress = CASE WHEN progress < $1 THEN $1 ELSE progress END
			WHERE id = $2 AND finished_at IS NULL`, progress, id)
		if err != nil {
			return s.fail("touch request", err)
		}
		n, err := res.RowsAffected()
		open = n > 0
		return s.fail("touch request", err)
	})
	return open, err
}

// QueuePosition counts the queued requests accepted before r, and r.
func (s *Store) QueuePosition(ctx context.Context, r *core.Request) (int, error) {
	var n int
	// The state is written out, not bound, so that both dialects can use the partial index
	// of queued requests (migration 0007).
	err := s.pool().QueryRowContext(ctx, `SELECT COUNT(*) FROM requests WHERE status = '`+string(core.RequestQueued)+`'
		AND (created_at < $1 OR (created_at = $1 AND id <= $2))`, s.t(r.CreatedAt), r.ID).Scan(&n)
	return n, s.fail("queue position", err)
}

// OpenAsyncRequests lists the ids of open asynchronous requests.
func (s *Store) OpenAsyncRequests(ctx context.Context) ([]uuid.UUID, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT id FROM requests WHERE async = $1 AND finished_at IS NULL ORDER BY id`, true)
	if err != nil {
		return nil, s.fail("open async requests", err)
	}
	defer rows.Close()
	var out []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, s.fail("open async requests", err)
		}
		out = append(out, id)
	}
	return out, s.fail("open async requests", rows.Err())
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
