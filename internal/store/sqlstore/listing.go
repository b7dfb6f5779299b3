package sqlstore

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// LedgerPage returns up to limit of the account's ledger rows with ids below before (0:
// from the newest), newest first.
func (s *Store) LedgerPage(ctx context.Context, account uuid.UUID, before int64, limit int) ([]core.LedgerEntry, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	rows, err := s.pool().QueryContext(ctx, `SELECT id, account_id, kind, delta, amount, ref, operation, created_at
		FROM ledger WHERE account_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, account, before, limit)
	if err != nil {
		return nil, s.fail("ledger", err)
	}
	defer rows.Close()
	var out []core.LedgerEntry
	for rows.Next() {
		var e core.LedgerEntry
		if err := rows.Scan(&e.ID, &e.AccountID, &e.Kind, &e.Delta, &e.Amount, &e.Ref, &e.Operation, timeScan{&e.CreatedAt}); err != nil {
			return nil, s.fail("ledger", err)
		}
		out = append(out, e)
	}
	return out, s.fail("ledger", rows.Err())
}

// Usage sums the account's charges per UTC day and operation for [from, to), in date and
// operation order. The database groups, so a long busy period costs no more rows here.
func (s *Store) Usage(ctx context.Context, account uuid.UUID, from, to time.Time) ([]core.UsageDay, error) {
	day := s.d.Day("created_at")
	rows, err := s.pool().QueryContext(ctx, `SELECT `+day+`, operation, COUNT(*), COALESCE(SUM(amount), 0)
		FROM ledger WHERE account_id = $1 AND kind = $2 AND created_at >= $3 AND created_at < $4
		GROUP BY `+day+`, operation ORDER BY 1, 2`, account, core.LedgerCharge, s.t(from), s.t(to))
	if err != nil {
		return nil, s.fail("usage", err)
	}
	defer rows.Close()
	out := []core.UsageDay{}
	for rows.Next() {
		var u core.UsageDay
		var day int64
		if err := rows.Scan(&day, &u.Operation, &u.Count, &u.Credits); err != nil {
			return nil, s.fail("usage", err)
		}
		u.Date = time.Unix(day*86400, 0).UTC().Format("2006-01-02")
		out = append(out, u)
	}
	return out, s.fail("usage", rows.Err())
}

// CustomModelsPage returns up to limit of the account's records of mode (any when empty),
// newest first, after the given place.
func (s *Store) CustomModelsPage(ctx context.Context, account uuid.UUID, mode core.Mode, after core.PageAfter, limit int) ([]core.CustomModel, error) {
	q := `SELECT ` + customCols + ` FROM custom_models WHERE account_id = $1 AND ($2 = '' OR mode = $2)`
	args := []any{account, string(mode)}
	if !after.Time.IsZero() {
		q += ` AND (created_at < $3 OR (created_at = $3 AND id < $4))`
		args = append(args, s.t(after.Time), after.Key)
	}
	rows, err := s.pool().QueryContext(ctx, q+` ORDER BY created_at DESC, id DESC LIMIT `+limitArg(len(args)+1), append(args, limit)...)
	if err != nil {
		return nil, s.fail("list custom models", err)
	}
	return s.scanCustoms(rows)
}

// OutputsPage returns up to limit of the account's outputs not expired at now (as the
// sweep judges), newest first, after the given place.
func (s *Store) OutputsPage(ctx context.Context, account uuid.UUID, now time.Time, after core.PageAfter, limit int) ([]core.Output, error) {
	q := `SELECT blob_key, account_id, request_id, operation, created_at, expires_at FROM outputs
		WHERE account_id = $1 AND expires_at >= $2`
	args := []any{account, s.t(now)}
	if !after.Time.IsZero() {
		q += ` AND (created_at < $3 OR (created_at = $3 AND blob_key < $4))`
		args = append(args, s.t(after.Time), after.Key)
	}
	rows, err := s.pool().QueryContext(ctx, q+` ORDER BY created_at DESC, blob_key DESC LIMIT `+limitArg(len(args)+1), append(args, limit)...)
	if err != nil {
		return nil, s.fail("list outputs", err)
	}
	defer rows.Close()
	var out []core.Output
	for rows.Next() {
		var o core.Output
		if err := rows.Scan(&o.Key, &o.AccountID, &o.RequestID, &o.Operation, timeScan{&o.CreatedAt}, timeScan{&o.ExpiresAt}); err != nil {
			return nil, s.fail("list outputs", err)
		}
		out = append(out, o)
	}
	return out, s.fail("list outputs", rows.Err())
}

// limitArg is the placeholder of the n-th argument.
func limitArg(n int) string { return "$" + strconv.Itoa(n) }
