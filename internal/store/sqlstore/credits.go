package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// defaultLedgerLimit is how many ledger rows Ledger returns when the caller gives no limit.
const defaultLedgerLimit = 100

// addLedger writes one credit movement; callers run it in the transaction that moves the
// balance, so the balance always equals the sum of the deltas.
func (s *Store) addLedger(ctx context.Context, tx querier, account uuid.UUID, kind core.LedgerKind,
	delta, amount int64, ref, op string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger (account_id, kind, delta, amount, ref, operation, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, account, kind, delta, amount, ref, op, s.t(at))
	return s.fail("ledger", err)
}

// Grant adds amount (> 0) credits and returns the new balance.
func (s *Store) Grant(ctx context.Context, account uuid.UUID, amount int64, ref string) (int64, error) {
	if amount <= 0 {
		return 0, core.E(core.CodeInvalidAmount, "The amount must be a positive number of credits.")
	}
	var balance int64
	err := s.inTx(ctx, "grant", func(tx querier) error {
		err := tx.QueryRowContext(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2 RETURNING balance`,
			amount, account).Scan(&balance)
		if err != nil {
			return s.fail("grant", err)
		}
		return s.addLedger(ctx, tx, account, core.LedgerGrant, amount, amount, ref, "", s.clock())
	})
	return balance, err
}

// Reserve holds amount credits for op on behalf of owner, topping the account up first
// when its smart balance allows (see core.Credits).
func (s *Store) Reserve(ctx context.Context, account uuid.UUID, amount int64, op string, owner core.Owner) (*core.Reservation, error) {
	var r *core.Reservation
	err := s.inTx(ctx, "reserve", func(tx querier) error {
		var err error
		r, err = s.reserve(ctx, tx, account, amount, op, owner)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// reserve holds credits inside the caller's transaction, so that the owner can be stored
// in the same one.
func (s *Store) reserve(ctx context.Context, tx querier, account uuid.UUID, amount int64, op string, owner core.Owner) (*core.Reservation, error) {
	if amount < 0 {
		return nil, core.E(core.CodeInvalidAmount, "The amount cannot be negative.")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	r := &core.Reservation{ID: id, AccountID: account, Amount: amount, Operation: op,
		State: core.ReservationHeld, Owner: owner, CreatedAt: s.clock()}
	// Locking the account row serialises reservations of one account (PostgreSQL), so two
	// of them cannot both open a top-up invoice.
	var balance, topup int64
	err = tx.QueryRowContext(ctx, `SELECT balance, topup_amount FROM accounts WHERE id = $1`+s.d.ForUpdate,
		account).Scan(&balance, &topup)
	if err != nil {
		return nil, s.fail("reserve", err)
	}
	if balance < amount {
		if err := s.topUp(ctx, tx, account, balance, topup, amount, r.CreatedAt); err != nil {
			return nil, err
		}
	}
	// The conditional update is the guarantee: it never takes a balance below zero.
	res, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - $1 WHERE id = $2 AND balance >= $1`,
		amount, account)
	if err != nil {
		return nil, s.fail("reserve", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return nil, fmt.Errorf("reserve: %w", core.ErrInsufficient)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO reservations (id, account_id, amount, operation, state, owner_kind, owner_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, r.ID, account, amount, op, r.State, owner.Kind, ownerID(owner), s.t(r.CreatedAt))
	if err != nil {
		return nil, s.fail("reserve", err)
	}
	if err := s.addLedger(ctx, tx, account, core.LedgerReserve, -amount, amount, r.ID.String(), op, r.CreatedAt); err != nil {
		return nil, err
	}
	return r, nil
}

// ownerID is the stored form of an owner's id: NULL for a hold without an owner.
func ownerID(o core.Owner) uuid.NullUUID {
	return uuid.NullUUID{UUID: o.ID, Valid: o.Kind != ""}
}

// topUp applies the smart balance when balance cannot cover amount: an open invoice and
// a topup ledger row, or the reason it may not.
func (s *Store) topUp(ctx context.Context, tx querier, account uuid.UUID, balance, topup, amount int64, at time.Time) error {
	if topup <= 0 {
		return fmt.Errorf("reserve: %w", core.ErrInsufficient)
	}
	var blocking int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM invoices WHERE account_id = $1 AND status IN ($2, $3)`,
		account, core.InvoiceOpen, core.InvoiceFailed).Scan(&blocking)
	if err != nil {
		return s.fail("reserve: invoices", err)
	}
	if blocking > 0 {
		return fmt.Errorf("reserve: %w", core.ErrPaymentFailed)
	}
	if balance+topup < amount {
		return fmt.Errorf("reserve: top-up too small: %w", core.ErrInsufficient)
	}
	inv, err := uuid.NewV7()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO invoices (id, account_id, amount, status, created_at) VALUES ($1, $2, $3, $4, $5)`,
		inv, account, topup, core.InvoiceOpen, s.t(at))
	if err != nil {
		return s.fail("reserve: invoice", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2`, topup, account); err != nil {
		return s.fail("reserve: top-up", err)
	}
	return s.addLedger(ctx, tx, account, core.LedgerTopUp, topup, topup, inv.String(), "", at)
}

// Charge keeps a held reservation. Charging one that is not held is ErrConflict.
func (s *Store) Charge(ctx context.Context, id uuid.UUID) error {
	return s.inTx(ctx, "charge", func(tx querier) error { return s.charge(ctx, tx, id) })
}

// charge keeps a held reservation inside the caller's transaction.
func (s *Store) charge(ctx context.Context, tx querier, id uuid.UUID) error {
	r, err := s.endHold(ctx, tx, id, core.ReservationCharged)
	if err != nil {
		return err
	}
	if r == nil {
		state, err := s.reservationState(ctx, tx, id)
		if err != nil {
			return err
		}
		return fmt.Errorf("charge: reservation is %s: %w", state, core.ErrConflict)
	}
	return s.addLedger(ctx, tx, r.AccountID, core.LedgerCharge, 0, r.Amount, id.String(), r.Operation, s.clock())
}

// endHold moves a held reservation to state and returns it, or nil when it was not held.
func (s *Store) endHold(ctx context.Context, tx querier, id uuid.UUID, state core.ReservationState) (*core.Reservation, error) {
	r := core.Reservation{ID: id, State: state}
	err := tx.QueryRowContext(ctx, `UPDATE reservations SET state = $1 WHERE id = $2 AND state = $3
		RETURNING account_id, amount, operation`, state, id, core.ReservationHeld).Scan(&r.AccountID, &r.Amount, &r.Operation)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("settle reservation", err)
	}
	return &r, nil
}

func (s *Store) reservationState(ctx context.Context, q querier, id uuid.UUID) (core.ReservationState, error) {
	var st core.ReservationState
	err := q.QueryRowContext(ctx, `SELECT state FROM reservations WHERE id = $1`, id).Scan(&st)
	return st, s.fail("reservation", err)
}

// Release gives a held reservation back; on a charged or released one it does nothing.
func (s *Store) Release(ctx context.Context, id uuid.UUID) error {
	return s.inTx(ctx, "release", func(tx querier) error {
		_, err := s.release(ctx, tx, id)
		return err
	})
}

// release gives a held reservation back inside the caller's transaction and reports
// whether it did; a finished one is left alone, an unknown one is ErrNotFound.
func (s *Store) release(ctx context.Context, tx querier, id uuid.UUID) (bool, error) {
	r, err := s.endHold(ctx, tx, id, core.ReservationReleased)
	if err != nil {
		return false, err
	}
	if r == nil {
		_, err := s.reservationState(ctx, tx, id) // ErrNotFound, or already finished
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance + $1 WHERE id = $2`, r.Amount, r.AccountID); err != nil {
		return false, s.fail("release", err)
	}
	return true, s.addLedger(ctx, tx, r.AccountID, core.LedgerRelease, r.Amount, r.Amount, id.String(), r.Operation, s.clock())
}

// Ledger returns the account's latest movements, newest first (limit <= 0: 100).
func (s *Store) Ledger(ctx context.Context, account uuid.UUID, limit int) ([]core.LedgerEntry, error) {
	if limit <= 0 {
		limit = defaultLedgerLimit
	}
	return s.LedgerPage(ctx, account, 0, limit)
}

// Invoices returns the account's top-up invoices, newest first.
func (s *Store) Invoices(ctx context.Context, account uuid.UUID) ([]core.Invoice, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT id, account_id, amount, status, created_at, settled_at
		FROM invoices WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, account)
	if err != nil {
		return nil, s.fail("invoices", err)
	}
	defer rows.Close()
	var out []core.Invoice
	for rows.Next() {
		var v core.Invoice
		if err := rows.Scan(&v.ID, &v.AccountID, &v.Amount, &v.Status, timeScan{&v.CreatedAt}, nullTimeScan{&v.SettledAt}); err != nil {
			return nil, s.fail("invoices", err)
		}
		out = append(out, v)
	}
	return out, s.fail("invoices", rows.Err())
}

// SettleInvoice marks an invoice paid or failed. An open invoice may become either; a
// failed one may still be paid later (which lifts the top-up block); a paid one is final.
func (s *Store) SettleInvoice(ctx context.Context, id uuid.UUID, status core.InvoiceStatus) error {
	if status != core.InvoicePaid && status != core.InvoiceFailed {
		return core.E(core.CodeValidation, "An invoice settles as paid or failed.")
	}
	return s.inTx(ctx, "settle invoice", func(tx querier) error {
		var cur core.InvoiceStatus
		err := tx.QueryRowContext(ctx, `SELECT status FROM invoices WHERE id = $1`+s.d.ForUpdate, id).Scan(&cur)
		if err != nil {
			return s.fail("settle invoice", err)
		}
		switch {
		case cur == status:
			return nil
		case cur == core.InvoicePaid:
			return fmt.Errorf("settle invoice: already paid: %w", core.ErrConflict)
		}
		_, err = tx.ExecContext(ctx, `UPDATE invoices SET status = $1, settled_at = $2 WHERE id = $3`, status, s.t(s.clock()), id)
		return s.fail("settle invoice", err)
	})
}
