package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// customCols lists the fixed columns first, then the mutable ones in customArgs order.
const customCols = `id, account_id, created_at, mode, name, status, stage, progress, special_instructions,
	source, portrait_key, reference_keys, params, fail_reason, reservation_id, completed_at`

func scanCustom(r scanner, m *core.CustomModel) error {
	var refs string
	var res uuid.NullUUID
	err := r.Scan(&m.ID, &m.AccountID, timeScan{&m.CreatedAt}, &m.Mode, &m.Name, &m.Status, &m.Stage, &m.Progress,
		&m.SpecialInstructions, &m.Source, &m.PortraitKey, &refs, &m.Params, &m.FailReason, &res, nullTimeScan{&m.CompletedAt})
	if err != nil {
		return err
	}
	m.ReferenceKeys = nil
	if err := json.Unmarshal([]byte(refs), &m.ReferenceKeys); err != nil {
		return fmt.Errorf("reference_keys: %w", err)
	}
	if len(m.ReferenceKeys) == 0 {
		m.ReferenceKeys = nil // what the caller stored: no keys
	}
	m.ReservationID = nil
	if res.Valid {
		m.ReservationID = &res.UUID
	}
	return nil
}

// customArgs are the stored forms of m's mutable fields, in customCols order (from mode).
func (s *Store) customArgs(m *core.CustomModel) ([]any, error) {
	refs := m.ReferenceKeys
	if refs == nil {
		refs = []string{}
	}
	b, err := json.Marshal(refs)
	if err != nil {
		return nil, err
	}
	var res uuid.NullUUID
	if m.ReservationID != nil {
		res = uuid.NullUUID{UUID: *m.ReservationID, Valid: true}
	}
	return []any{m.Mode, m.Name, m.Status, m.Stage, m.Progress, m.SpecialInstructions, m.Source,
		m.PortraitKey, string(b), m.Params, m.FailReason, res, s.nt(m.CompletedAt)}, nil
}

// CreateCustomModel stores a persona or style. A zero ID gets a UUID v7; an empty Status
// is processing and an empty Stage queued. A duplicate (account, mode, name), or a
// look-alike of one (core.NameKey), is ErrConflict.
func (s *Store) CreateCustomModel(ctx context.Context, m *core.CustomModel) error {
	return s.insertCustom(ctx, s.pool(), m)
}

// CreateTraining stores a processing record and holds price credits for its training,
// owned by the record, in one transaction.
func (s *Store) CreateTraining(ctx context.Context, m *core.CustomModel, price int64) error {
	m.Status, m.Stage = core.StatusProcessing, core.StageQueued
	id, err := newID(m.ID)
	if err != nil {
		return err
	}
	m.ID = id
	return s.inTx(ctx, "create training", func(tx querier) error {
		res, err := s.reserve(ctx, tx, m.AccountID, price, core.OpTraining, core.Owner{Kind: core.OwnerCustomModel, ID: m.ID})
		if err != nil {
			return err
		}
		m.ReservationID = &res.ID
		return s.insertCustom(ctx, tx, m)
	})
}

// insertCustom inserts m through q (the pool or a transaction).
func (s *Store) insertCustom(ctx context.Context, q querier, m *core.CustomModel) error {
	if m.Mode != core.ModePersona && m.Mode != core.ModeStyle {
		return core.E(core.CodeValidation, "Unknown custom model mode %q.", m.Mode)
	}
	if m.Status == "" {
		m.Status = core.StatusProcessing
	}
	if m.Stage == "" {
		m.Stage = core.StageQueued
	}
	id, err := newID(m.ID)
	if err != nil {
		return err
	}
	m.ID, m.CreatedAt = id, s.clock()
	args, err := s.customArgs(m)
	if err != nil {
		return err
	}
	args = append([]any{m.ID, m.AccountID, s.t(m.CreatedAt)}, args...)
	_, err = q.ExecContext(ctx, `INSERT INTO custom_models (`+customCols+`, name_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`, append(args, core.NameKey(m.Name))...)
	return s.fail("create custom model", err)
}

// GetCustomModel returns the account's record; another account's record is ErrNotFound.
func (s *Store) GetCustomModel(ctx context.Context, account, id uuid.UUID) (*core.CustomModel, error) {
	var m core.CustomModel
	err := scanCustom(s.pool().QueryRowContext(ctx, `SELECT `+customCols+` FROM custom_models WHERE id = $1 AND account_id = $2`,
		id, account), &m)
	if err != nil {
		return nil, s.fail("get custom model", err)
	}
	return &m, nil
}

// CustomModelByID returns a record whoever owns it, for background jobs.
func (s *Store) CustomModelByID(ctx context.Context, id uuid.UUID) (*core.CustomModel, error) {
	return s.customByID(ctx, s.db, id, "")
}

// customByID reads a record; lock is appended to the query (a dialect's locking clause).
func (s *Store) customByID(ctx context.Context, q querier, id uuid.UUID, lock string) (*core.CustomModel, error) {
	query := `SELECT ` + customCols + ` FROM custom_models WHERE id = $1` + lock
	var m core.CustomModel
	if err := scanCustom(q.QueryRowContext(ctx, query, id), &m); err != nil {
		return nil, s.fail("get custom model", err)
	}
	return &m, nil
}

// ListCustomModels returns the account's records, oldest first.
func (s *Store) ListCustomModels(ctx context.Context, account uuid.UUID) ([]core.CustomModel, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT `+customCols+` FROM custom_models WHERE account_id = $1
		ORDER BY created_at, id`, account)
	if err != nil {
		return nil, s.fail("list custom models", err)
	}
	return s.scanCustoms(rows)
}

// scanCustoms reads every record of rows and closes them.
func (s *Store) scanCustoms(rows *sql.Rows) ([]core.CustomModel, error) {
	defer rows.Close()
	var out []core.CustomModel
	for rows.Next() {
		var m core.CustomModel
		if err := scanCustom(rows, &m); err != nil {
			return nil, s.fail("list custom models", err)
		}
		out = append(out, m)
	}
	return out, s.fail("list custom models", rows.Err())
}

// UpdateCustomModel lets fn change the record in one transaction. ID, AccountID, Mode and
// CreatedAt stay as stored; a rename onto a taken name is ErrConflict. The name key is
// rewritten only on a rename, so that a record from before keys existed keeps updating.
// An update that ends a processing record settles its hold (settleCustom).
func (s *Store) UpdateCustomModel(ctx context.Context, id uuid.UUID, fn func(*core.CustomModel) error) (*core.CustomModel, error) {
	m, _, err := s.FinishTraining(ctx, id, fn)
	return m, err
}

// FinishTraining is UpdateCustomModel reporting whether the update charged the record's
// hold.
func (s *Store) FinishTraining(ctx context.Context, id uuid.UUID, fn func(*core.CustomModel) error) (*core.CustomModel, bool, error) {
	var out *core.CustomModel
	var charged bool
	err := s.inTx(ctx, "update custom model", func(tx querier) error {
		m, err := s.customByID(ctx, tx, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		orig := *m
		if err := fn(m); err != nil {
			return err
		}
		m.ID, m.AccountID, m.Mode, m.CreatedAt = orig.ID, orig.AccountID, orig.Mode, orig.CreatedAt
		args, err := s.customArgs(m)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE custom_models SET mode = $1, name = $2, status = $3, stage = $4,
			progress = $5, special_instructions = $6, source = $7, portrait_key = $8, reference_keys = $9,
			params = $10, fail_reason = $11, reservation_id = $12, completed_at = $13,
			name_key = CASE WHEN name = $2 THEN name_key ELSE $14 END WHERE id = $15`,
			append(args, core.NameKey(m.Name), id)...)
		if err != nil {
			return s.fail("update custom model", err)
		}
		if charged, err = s.settleCustom(ctx, tx, orig.Status, m); err != nil {
			return err
		}
		out = m
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, charged, nil
}

// DeleteCustomModel deletes the account's record and returns it, so the caller can remove
// its blobs; ErrProcessing while it trains, ErrNotFound for others' records.
func (s *Store) DeleteCustomModel(ctx context.Context, account, id uuid.UUID) (*core.CustomModel, error) {
	var out *core.CustomModel
	err := s.inTx(ctx, "delete custom model", func(tx querier) error {
		m, err := s.customByID(ctx, tx, id, s.d.ForUpdate)
		if err != nil {
			return err
		}
		if m.AccountID != account {
			return fmt.Errorf("delete custom model: %w", core.ErrNotFound)
		}
		if m.Status == core.StatusProcessing {
			return fmt.Errorf("delete custom model: %w", core.ErrProcessing)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM custom_models WHERE id = $1`, id); err != nil {
			return s.fail("delete custom model", err)
		}
		out = m
		return nil
	})
	return out, err
}
