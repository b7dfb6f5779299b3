package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"thumbforge/internal/core"
)

// maintenanceSetting names the maintenance switch in the settings table.
const maintenanceSetting = "maintenance"

// Maintenance reports whether the maintenance switch is on (off when never set).
func (s *Store) Maintenance(ctx context.Context) (bool, error) {
	var v string
	err := s.pool().QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, maintenanceSetting).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("maintenance", err)
	}
	return v == "on", nil
}

// SetMaintenance turns the maintenance switch on or off.
func (s *Store) SetMaintenance(ctx context.Context, on bool) error {
	v := "off"
	if on {
		v = "on"
	}
	_, err := s.pool().ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, maintenanceSetting, v)
	return s.fail("set maintenance", err)
}

// RecordOutput remembers a stored blob, what made it and when it expires; recording a key
// again moves its expiry.
func (s *Store) RecordOutput(ctx context.Context, o core.Output) error {
	_, err := s.pool().ExecContext(ctx, `INSERT INTO outputs (blob_key, account_id, expires_at, created_at, request_id, operation)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (blob_key) DO UPDATE SET expires_at = excluded.expires_at`,
		o.Key, o.AccountID, s.t(o.ExpiresAt), s.t(s.clock()), o.RequestID, o.Operation)
	return s.fail("record output", err)
}

// ExpiredOutputs returns up to limit keys that expired before now, oldest expiry first.
func (s *Store) ExpiredOutputs(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.pool().QueryContext(ctx, `SELECT blob_key FROM outputs WHERE expires_at < $1 ORDER BY expires_at, blob_key LIMIT $2`,
		s.t(now), limit)
	if err != nil {
		return nil, s.fail("expired outputs", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, s.fail("expired outputs", err)
		}
		out = append(out, k)
	}
	return out, s.fail("expired outputs", rows.Err())
}

// DeleteOutput forgets a blob; forgetting an unknown key does nothing, so concurrent
// sweeps on several replicas do not trip over each other.
func (s *Store) DeleteOutput(ctx context.Context, key string) error {
	_, err := s.pool().ExecContext(ctx, `DELETE FROM outputs WHERE blob_key = $1`, key)
	return s.fail("delete output", err)
}
