package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

const webhookCols = `account_id, url, secret, previous_secret, previous_until, created_at, updated_at`

func scanWebhook(r scanner) (*core.Webhook, error) {
	var w core.Webhook
	err := r.Scan(&w.AccountID, &w.URL, &w.Secret, &w.PreviousSecret, nullTimeScan{&w.PreviousUntil},
		timeScan{&w.CreatedAt}, timeScan{&w.UpdatedAt})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// SetWebhook creates the account's webhook with secret, or changes the URL of the one it
// has (keeping its secret).
func (s *Store) SetWebhook(ctx context.Context, account uuid.UUID, url, secret string) (*core.Webhook, bool, error) {
	now := s.clock()
	var out *core.Webhook
	var created bool
	err := s.inTx(ctx, "set webhook", func(tx querier) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhooks (account_id, url, secret, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) ON CONFLICT (account_id) DO NOTHING`, account, url, secret, s.t(now))
		if err != nil {
			return s.fail("set webhook", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return s.fail("set webhook", err)
		}
		if created = n == 1; !created {
			if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET url = $1, updated_at = $2 WHERE account_id = $3`,
				url, s.t(now), account); err != nil {
				return s.fail("set webhook", err)
			}
		}
		out, err = scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE account_id = $1`, account))
		return s.fail("set webhook", err)
	})
	return out, created, err
}

// GetWebhook returns the account's webhook, or ErrNotFound.
func (s *Store) GetWebhook(ctx context.Context, account uuid.UUID) (*core.Webhook, error) {
	w, err := scanWebhook(s.pool().QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE account_id = $1`, account))
	return w, s.fail("get webhook", err)
}

// RotateWebhookSecret replaces the secret, keeping the old one until previousUntil.
func (s *Store) RotateWebhookSecret(ctx context.Context, account uuid.UUID, secret string, previousUntil time.Time) (*core.Webhook, error) {
	var out *core.Webhook
	err := s.inTx(ctx, "rotate webhook secret", func(tx querier) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET previous_secret = secret, previous_until = $1, secret = $2, updated_at = $3
			WHERE account_id = $4`, s.t(previousUntil), secret, s.t(s.clock()), account)
		if err != nil {
			return s.fail("rotate webhook secret", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("rotate webhook secret: %w", core.ErrNotFound)
		}
		out, err = scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE account_id = $1`, account))
		return s.fail("rotate webhook secret", err)
	})
	return out, err
}

// DeleteWebhook removes the account's webhook.
func (s *Store) DeleteWebhook(ctx context.Context, account uuid.UUID) error {
	res, err := s.pool().ExecContext(ctx, `DELETE FROM webhooks WHERE account_id = $1`, account)
	if err != nil {
		return s.fail("delete webhook", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("delete webhook: %w", core.ErrNotFound)
	}
	return nil
}

// RecordWebhookDelivery stores one attempt; its ID and time are set here.
func (s *Store) RecordWebhookDelivery(ctx context.Context, d *core.WebhookDelivery) error {
	d.CreatedAt = s.clock()
	err := s.pool().QueryRowContext(ctx, `INSERT INTO webhook_deliveries (account_id, event_id, event_type, url, attempt, status, error, duration_ms, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		d.AccountID, d.EventID, d.EventType, d.URL, d.Attempt, d.Status, d.Error, d.DurationMS, s.t(d.CreatedAt)).Scan(&d.ID)
	return s.fail("record webhook delivery", err)
}

// WebhookDeliveries returns the account's latest attempts, newest first.
func (s *Store) WebhookDeliveries(ctx context.Context, account uuid.UUID, limit int) ([]core.WebhookDelivery, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT id, account_id, event_id, event_type, url, attempt, status, error, duration_ms, created_at
		FROM webhook_deliveries WHERE account_id = $1 ORDER BY id DESC LIMIT $2`, account, limit)
	if err != nil {
		return nil, s.fail("webhook deliveries", err)
	}
	defer rows.Close()
	out := []core.WebhookDelivery{}
	for rows.Next() {
		var d core.WebhookDelivery
		if err := rows.Scan(&d.ID, &d.AccountID, &d.EventID, &d.EventType, &d.URL, &d.Attempt, &d.Status, &d.Error,
			&d.DurationMS, timeScan{&d.CreatedAt}); err != nil {
			return nil, s.fail("webhook deliveries", err)
		}
		out = append(out, d)
	}
	return out, s.fail("webhook deliveries", rows.Err())
}

// SweepWebhookDeliveries deletes attempts recorded before cutoff.
func (s *Store) SweepWebhookDeliveries(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := s.pool().ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE created_at < $1`, s.t(cutoff))
	if err != nil {
		return 0, s.fail("sweep webhook deliveries", err)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail("sweep webhook deliveries", err)
}
