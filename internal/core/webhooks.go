package core

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// EventType names what a webhook announces.
type EventType string

// Webhook events. Request events concern asynchronous requests; custom events personas
// and styles of either version.
const (
	EventRequestSucceeded EventType = "request.succeeded"
	EventRequestFailed    EventType = "request.failed"
	EventCustomCompleted  EventType = "custom.completed"
	EventCustomFailed     EventType = "custom.failed"
)

// Event is something an account's webhook is told of.
type Event struct {
	Type      EventType
	AccountID uuid.UUID
	// ID identifies the event (the webhook-id of every delivery attempt of it). Events
	// with a natural identity derive it from that, so that announcing one twice delivers
	// it once.
	ID string
	At time.Time
	// Custom is the record of a custom event; Request the request of a request event.
	Custom  *CustomModel
	Request *Request
}

// Events announces events; Notify queues deliveries and must not wait for them.
type Events interface {
	Notify(ctx context.Context, e Event) error
}

// notify announces e when the service has an announcer; a failure is logged, never the
// caller's: the work it announces is done either way.
func (s *Service) notify(ctx context.Context, e Event) {
	if s.cfg.Events == nil {
		return
	}
	if e.At.IsZero() {
		e.At = s.cfg.Now()
	}
	if err := s.cfg.Events.Notify(context.WithoutCancel(ctx), e); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "announce event", "type", e.Type, "id", e.ID, "account", e.AccountID, "err", err)
	}
}

// customEvent is the event of a custom model reaching completed or failed; its id is the
// record's, so announcing it again (a job retried) delivers it once.
func customEvent(t EventType, m *CustomModel) Event {
	return Event{Type: t, AccountID: m.AccountID, ID: "msg_" + m.ID.String() + "_" + string(m.Status), Custom: m}
}

// Webhook is an account's endpoint for events.
type Webhook struct {
	AccountID uuid.UUID `json:"account_id"`
	URL       string    `json:"url"`
	// Secret signs deliveries (whsec_ and base64); PreviousSecret signs beside it until
	// PreviousUntil, after a rotation.
	Secret         string     `json:"-"`
	PreviousSecret string     `json:"-"`
	PreviousUntil  *time.Time `json:"-"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

// WebhookDelivery is one attempt to deliver an event.
type WebhookDelivery struct {
	ID        int64     `json:"id"`
	AccountID uuid.UUID `json:"account_id"`
	EventID   string    `json:"event_id"`
	EventType EventType `json:"event_type"`
	URL       string    `json:"url"`
	Attempt   int       `json:"attempt"`
	// Status is the endpoint's HTTP status, 0 when it gave none; Error says why an attempt
	// failed ("" when it succeeded).
	Status     int       `json:"status"`
	Error      string    `json:"error"`
	DurationMS int64     `json:"duration_ms"`
	CreatedAt  time.Time `json:"created_at"`
}

// Webhooks stores endpoints and delivery attempts.
type Webhooks interface {
	// SetWebhook points the account's webhook at url. A new webhook takes secret; an
	// existing one keeps its own (created says which happened).
	SetWebhook(ctx context.Context, account uuid.UUID, url, secret string) (w *Webhook, created bool, err error)
	// GetWebhook returns the account's webhook, or ErrNotFound.
	GetWebhook(ctx context.Context, account uuid.UUID) (*Webhook, error)
	// RotateWebhookSecret replaces the secret; the old one keeps signing until
	// previousUntil. ErrNotFound without a webhook.
	RotateWebhookSecret(ctx context.Context, account uuid.UUID, secret string, previousUntil time.Time) (*Webhook, error)
	// DeleteWebhook removes the account's webhook; ErrNotFound without one.
	DeleteWebhook(ctx context.Context, account uuid.UUID) error
	RecordWebhookDelivery(ctx context.Context, d *WebhookDelivery) error
	// WebhookDeliveries returns the account's latest attempts, newest first.
	WebhookDeliveries(ctx context.Context, account uuid.UUID, limit int) ([]WebhookDelivery, error)
	// SweepWebhookDeliveries deletes attempts recorded before cutoff.
	SweepWebhookDeliveries(ctx context.Context, cutoff time.Time) (int, error)
}
