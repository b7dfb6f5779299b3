package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const accountCols = `id, name, suspended, api_access, concurrency, balance, topup_amount, created_at`

func scanAccount(r scanner, a *core.Account) error {
	return r.Scan(&a.ID, &a.Name, &a.Suspended, &a.APIAccess, &a.Concurrency, &a.Balance,
		&a.TopUpAmount, timeScan{&a.CreatedAt})
}

// checkAccount enforces the rules the schema's CHECKs also hold, with public errors.
func checkAccount(a *core.Account) error {
	switch {
	case a.TopUpAmount < 0:
		return core.E(core.CodeInvalidAmount, "The top-up amount cannot be negative.")
	case a.Concurrency < 1:
		return core.E(core.CodeValidation, "The concurrency limit must be at least 1.")
	}
	return nil
}

// CreateAccount stores a new account. A zero ID gets a UUID v7, a zero Concurrency the
// default; an opening Balance is recorded as a grant so the ledger sums to the balance.
func (s *Store) CreateAccount(ctx context.Context, a *core.Account) error {
	if a.Concurrency == 0 {
		a.Concurrency = core.DefaultConcurrency
	}
	if a.Balance < 0 {
		return core.E(core.CodeInvalidAmount, "The opening balance cannot be negative.")
	}
	if err := checkAccount(a); err != nil {
		return err
	}
	id, err := newID(a.ID)
	if err != nil {
		return err
	}
	a.ID, a.CreatedAt = id, s.clock()
	return s.inTx(ctx, "create account", func(tx querier) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts (`+accountCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			a.ID, a.Name, a.Suspended, a.APIAccess, a.Concurrency, a.Balance, a.TopUpAmount, s.t(a.CreatedAt))
		if err != nil {
			return s.fail("create account", err)
		}
		if a.Balance > 0 {
			return s.addLedger(ctx, tx, a.ID, core.LedgerGrant, a.Balance, a.Balance, "opening balance", "", a.CreatedAt)
		}
		return nil
	})
}

// GetAccount returns the account or ErrNotFound.
func (s *Store) GetAccount(ctx context.Context, id uuid.UUID) (*core.Account, error) {
	return s.getAccount(ctx, s.db, id, false)
}

func (s *Store) getAccount(ctx context.Context, q querier, id uuid.UUID, lock bool) (*core.Account, error) {
	query := `SELECT ` + accountCols + ` FROM accounts WHERE id = $1`
	if lock {
		query += s.d.ForUpdate
	}
	var a core.Account
	if err := scanAccount(q.QueryRowContext(ctx, query, id), &a); err != nil {
		return nil, s.fail("get account", err)
	}
	return &a, nil
}

// ListAccounts returns every account, oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]core.Account, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT `+accountCols+` FROM accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, s.fail("list accounts", err)
	}
	defer rows.Close()
	var out []core.Account
	for rows.Next() {
		var a core.Account
		if err := scanAccount(rows, &a); err != nil {
			return nil, s.fail("list accounts", err)
		}
		out = append(out, a)
	}
	return out, s.fail("list accounts", rows.Err())
}

// UpdateAccount lets fn change the account in one transaction. Whatever fn does to ID,
// Balance or CreatedAt is ignored: credits move only through the ledger.
func (s *Store) UpdateAccount(ctx context.Context, id uuid.UUID, fn func(*core.Account) error) (*core.Account, error) {
	var out *core.Account
	err := s.inTx(ctx, "update account", func(tx querier) error {
		a, err := s.getAccount(ctx, tx, id, true)
		if err != nil {
			return err
		}
		orig := *a
		if err := fn(a); err != nil {
			return err
		}
		a.ID, a.Balance, a.CreatedAt = orig.ID, orig.Balance, orig.CreatedAt
		if err := checkAccount(a); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE accounts SET name = $1, suspended = $2, api_access = $3,
			concurrency = $4, topup_amount = $5 WHERE id = $6`,
			a.Name, a.Suspended, a.APIAccess, a.Concurrency, a.TopUpAmount, id)
		if err != nil {
			return s.fail("update account", err)
		}
		out = a
		return nil
	})
	return out, err
}

const keyCols = `id, account_id, prefix, hash, status, created_at`

func scanKey(r scanner, k *core.APIKey, more ...any) error {
	return r.Scan(append([]any{&k.ID, &k.AccountID, &k.Prefix, &k.Hash, &k.Status, timeScan{&k.CreatedAt}}, more...)...)
}

func validKeyStatus(st core.KeyStatus) bool {
	return st == core.KeyActive || st == core.KeyInactive || st == core.KeyDeleted
}

// CreateKey stores a key (its hash only). A zero ID gets a UUID v7, an empty Status is
// active; a duplicate hash is ErrConflict and an unknown account ErrNotFound.
func (s *Store) CreateKey(ctx context.Context, k *core.APIKey) error {
	if k.Status == "" {
		k.Status = core.KeyActive
	}
	if !validKeyStatus(k.Status) || len(k.Hash) == 0 {
		return core.E(core.CodeValidation, "The key needs a hash and a known status.")
	}
	id, err := newID(k.ID)
	if err != nil {
		return err
	}
	k.ID, k.CreatedAt = id, s.clock()
	_, err = s.pool().ExecContext(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.AccountID, k.Prefix, k.Hash, k.Status, s.t(k.CreatedAt))
	return s.fail("create key", err)
}

// KeyByHash returns the key with this hash and its account, in one query.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (*core.APIKey, *core.Account, error) {
	var k core.APIKey
	var a core.Account
	err := scanKey(s.pool().QueryRowContext(ctx, `SELECT k.id, k.account_id, k.prefix, k.hash, k.status, k.created_at,
		a.id, a.name, a.suspended, a.api_access, a.concurrency, a.balance, a.topup_amount, a.created_at
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`, hash), &k,
		&a.ID, &a.Name, &a.Suspended, &a.APIAccess, &a.Concurrency, &a.Balance, &a.TopUpAmount, timeScan{&a.CreatedAt})
	if err != nil {
		return nil, nil, s.fail("key by hash", err)
	}
	return &k, &a, nil
}

// GetKey returns the key or ErrNotFound.
func (s *Store) GetKey(ctx context.Context, id uuid.UUID) (*core.APIKey, error) {
	var k core.APIKey
	if err := scanKey(s.pool().QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = $1`, id), &k); err != nil {
		return nil, s.fail("get key", err)
	}
	return &k, nil
}

// ListKeys returns the account's keys, oldest first.
func (s *Store) ListKeys(ctx context.Context, account uuid.UUID) ([]core.APIKey, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, account)
	if err != nil {
		return nil, s.fail("list keys", err)
	}
	defer rows.Close()
	var out []core.APIKey
	for rows.Next() {
		var k core.APIKey
		if err := scanKey(rows, &k); err != nil {
			return nil, s.fail("list keys", err)
		}
		out = append(out, k)
	}
	return out, s.fail("list keys", rows.Err())
}

// SetKeyStatus changes a key's status, or returns ErrNotFound.
func (s *Store) SetKeyStatus(ctx context.Context, id uuid.UUID, st core.KeyStatus) error {
	if !validKeyStatus(st) {
		return core.E(core.CodeValidation, "Unknown key status %q.", st)
	}
	res, err := s.pool().ExecContext(ctx, `UPDATE api_keys SET status = $1 WHERE id = $2`, st, id)
	if err != nil {
		return s.fail("set key status", err)
	}
	return s.affected("set key status", res)
}

// affected turns an update that touched no row into ErrNotFound.
func (s *Store) affected(op string, res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return s.fail(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return nil
}
