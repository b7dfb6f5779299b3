package sqlstore

import (
	"context"
)

// SetAdminTokenHash stores the hash of a new admin token; the one row of admin_token is
// replaced, so a new token revokes the earlier one.
func (s *Store) SetAdminTokenHash(ctx context.Context, hash []byte) error {
	_, err := s.pool().ExecContext(ctx, `INSERT INTO admin_token (id, hash, created_at) VALUES (1, $1, $2)
		ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at`, hash, s.t(s.clock()))
	return s.fail("set admin token", err)
}

// AdminTokenHash returns the stored admin token hash, or core.ErrNotFound.
func (s *Store) AdminTokenHash(ctx context.Context) ([]byte, error) {
	var hash []byte
	err := s.pool().QueryRowContext(ctx, `SELECT hash FROM admin_token WHERE id = 1`).Scan(&hash)
	if err != nil {
		return nil, s.fail("admin token", err)
	}
	return hash, nil
}
