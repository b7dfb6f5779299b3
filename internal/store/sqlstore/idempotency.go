package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const idemCols = `account_id, idem_key, fingerprint, request_id, state, status, header, body, created_at, expires_at`

func scanIdem(r scanner) (*core.IdempotentRequest, error) {
	var out core.IdempotentRequest
	var header string
	err := r.Scan(&out.AccountID, &out.Key, &out.Fingerprint, &out.RequestID, &out.State, &out.Status, &header, &out.Body,
		timeScan{&out.CreatedAt}, timeScan{&out.ExpiresAt})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(header), &out.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	return &out, nil
}

// ClaimIdempotencyKey records r as running unless a live record holds its key (see
// core.Idempotency). The insert that does nothing on a conflict waits, on PostgreSQL, for
// a concurrent claim of the same key to commit, and the row lock orders takeovers, so of
// any number of simultaneous claims exactly one wins, on one replica or many.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, r *core.IdempotentRequest, staleBefore time.Time) (*core.IdempotentRequest, error) {
	now := s.clock()
	r.State, r.Status, r.Header, r.Body = core.IdempotencyRunning, 0, nil, nil
	r.CreatedAt, r.ExpiresAt = now, now.Add(core.IdempotencyTTL)
	var live *core.IdempotentRequest
	err := s.inTx(ctx, "claim idempotency key", func(tx querier) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, request_id, state, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, idem_key) DO NOTHING`,
			r.AccountID, r.Key, r.Fingerprint, r.RequestID, r.State, s.t(r.CreatedAt), s.t(r.ExpiresAt))
		if err != nil {
			return s.fail("claim idempotency key", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return s.fail("claim idempotency key", err)
		}
		cur, err := scanIdem(tx.QueryRowContext(ctx, `SELECT `+idemCols+` FROM idempotency_keys
			WHERE account_id = $1 AND idem_key = $2`+s.d.ForUpdate, r.AccountID, r.Key))
		if err != nil {
			return s.fail("claim idempotency key", err)
		}
		expired := !cur.ExpiresAt.After(now)
		abandoned := cur.State == core.IdempotencyRunning && cur.CreatedAt.Before(staleBefore)
		if !expired && !abandoned {
			live = cur
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE idempotency_keys SET fingerprint = $1, request_id = $2, state = $3, status = 0,
			header = '{}', body = NULL, created_at = $4, expires_at = $5 WHERE account_id = $6 AND idem_key = $7`,
			r.Fingerprint, r.RequestID, r.State, s.t(r.CreatedAt), s.t(r.ExpiresAt), r.AccountID, r.Key)
		return s.fail("claim idempotency key", err)
	})
	return live, err
}

// FinishIdempotencyKey keeps the answer of requestID's claim.
func (s *Store) FinishIdempotencyKey(ctx context.Context, account uuid.UUID, key, requestID string, status int, header map[string]string, body []byte) error {
	if header == nil {
		header = map[string]string{}
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	if body == nil {
		body = []byte{}
	}
	res, err := s.pool().ExecContext(ctx, `UPDATE idempotency_keys SET state = $1, status = $2, header = $3, body = $4
		WHERE account_id = $5 AND idem_key = $6 AND request_id = $7 AND state = $8`,
		core.IdempotencyDone, status, string(h), body, account, key, requestID, core.IdempotencyRunning)
	if err != nil {
		return s.fail("finish idempotency key", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("finish idempotency key: %w", core.ErrNotFound)
	}
	return nil
}

// ReleaseIdempotencyKey deletes requestID's running claim.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, account uuid.UUID, key, requestID string) error {
	_, err := s.pool().ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND request_id = $3 AND state = $4`,
		account, key, requestID, core.IdempotencyRunning)
	return s.fail("release idempotency key", err)
}

// SweepIdempotencyKeys deletes the records expired at now.
func (s *Store) SweepIdempotencyKeys(ctx context.Context, now time.Time) (int, error) {
	res, err := s.pool().ExecContext(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= $1`, s.t(now))
	if err != nil {
		return 0, s.fail("sweep idempotency keys", err)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail("sweep idempotency keys", err)
}
