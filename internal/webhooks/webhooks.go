package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
	"thumbforge/internal/jobs"
)

// DeliveryTimeout bounds one delivery attempt: connecting, sending, the endpoint's answer.
const DeliveryTimeout = 10 * time.Second

// DeliveriesKept is how long delivery attempts are listed by `thumbforge webhooks
// deliveries` before the sweep deletes them.
const DeliveriesKept = 7 * 24 * time.Hour

// Queue queues deliveries (jobs.Queue).
type Queue interface {
	EnqueueWebhook(ctx context.Context, j jobs.WebhookJob) error
}

// Config wires the webhooks.
type Config struct {
	Store core.Webhooks
	Queue Queue
	// Render returns an event's data: what GET /v2/custom/{id} (or /v2/requests/{id})
	// would answer.
	Render func(ctx context.Context, e core.Event) (any, error)
	// AllowPrivate lets deliveries reach private and loopback addresses (local
	// development, tests), as --allow-private-fetch does for image URLs.
	AllowPrivate bool
	// TLSConfig, when set, is the deliveries' TLS configuration (tests' own servers).
	TLSConfig *tls.Config
	// Timeout bounds an attempt; 0 means DeliveryTimeout.
	Timeout time.Duration
	Logger  *slog.Logger
	Now     func() time.Time
}

// Webhooks announces events (core.Events) and delivers them (jobs.WebhookHandler).
type Webhooks struct {
	cfg    Config
	client *http.Client
}

// New checks cfg and builds the deliverer's HTTP client.
func New(cfg Config) (*Webhooks, error) {
	if cfg.Store == nil || cfg.Queue == nil || cfg.Render == nil {
		return nil, errors.New("webhooks: store, queue and renderer are required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DeliveryTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Webhooks{cfg: cfg, client: inputs.GuardedClient(cfg.AllowPrivate, cfg.Timeout, cfg.TLSConfig)}, nil
}

// payload is the body of every delivery.
type payload struct {
	Type      core.EventType `json:"type"`
	Timestamp string         `json:"timestamp"`
	Data      any            `json:"data"`
}

// Notify queues e's delivery when its account has a webhook. The body is fixed now, so
// every attempt sends the same bytes.
func (w *Webhooks) Notify(ctx context.Context, e core.Event) error {
	if _, err := w.cfg.Store.GetWebhook(ctx, e.AccountID); errors.Is(err, core.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	data, err := w.cfg.Render(ctx, e)
	if err != nil {
		return fmt.Errorf("webhooks: render %s: %w", e.Type, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // links keep their "&"
	if err := enc.Encode(payload{Type: e.Type, Timestamp: e.At.UTC().Format(time.RFC3339Nano), Data: data}); err != nil {
		return err
	}
	return w.cfg.Queue.EnqueueWebhook(ctx, jobs.WebhookJob{EventID: e.ID, AccountID: e.AccountID, Type: string(e.Type),
		Payload: bytes.TrimRight(buf.Bytes(), "\n")})
}

// DeliverWebhook makes one attempt: the account's current endpoint and secrets, a fresh
// timestamp and signature, the event's own id and body. Anything but a 2xx answer within
// the timeout is a failure, retried by the queue. Every attempt is recorded.
func (w *Webhooks) DeliverWebhook(ctx context.Context, job jobs.WebhookJob, attempt int) error {
	hook, err := w.cfg.Store.GetWebhook(ctx, job.AccountID)
	if errors.Is(err, core.ErrNotFound) {
		w.cfg.Logger.InfoContext(ctx, "webhook removed: event dropped", "event", job.EventID, "account", job.AccountID)
		return nil
	}
	if err != nil {
		return err
	}
	now := w.cfg.Now()
	secrets := []string{hook.Secret}
	if hook.PreviousSecret != "" && hook.PreviousUntil != nil && now.Before(*hook.PreviousUntil) {
		secrets = append(secrets, hook.PreviousSecret)
	}
	header, err := Headers(secrets, job.EventID, now, job.Payload)
	if err != nil {
		return err
	}
	header.Set("User-Agent", "thumbforge-webhooks")
	d := &core.WebhookDelivery{AccountID: job.AccountID, EventID: job.EventID, EventType: core.EventType(job.Type),
		URL: hook.URL, Attempt: attempt}
	start := time.Now()
	d.Status, d.Error = w.post(ctx, hook.URL, header, job.Payload)
	d.DurationMS = time.Since(start).Milliseconds()
	if err := w.cfg.Store.RecordWebhookDelivery(context.WithoutCancel(ctx), d); err != nil {
		w.cfg.Logger.ErrorContext(ctx, "record webhook delivery", "event", job.EventID, "err", err)
	}
	if d.Error != "" {
		return fmt.Errorf("webhooks: %s attempt %d: %s", job.EventID, attempt, d.Error)
	}
	return nil
}

// post sends one delivery and says how it went: the status, and why it failed ("" when
// the endpoint answered 2xx).
func (w *Webhooks) post(ctx context.Context, url string, header http.Header, body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "the URL cannot be requested"
	}
	req.Header = header
	resp, err := w.client.Do(req)
	if err != nil {
		var ne net.Error
		switch {
		case inputs.IsBlockedAddress(err):
			return 0, "the URL's address is private or reserved (allowed only with --allow-private-fetch)"
		case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			return 0, fmt.Sprintf("no answer within %v", w.cfg.Timeout)
		}
		return 0, "the endpoint could not be reached"
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, ""
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, fmt.Sprintf("HTTP %d: redirects are not followed", resp.StatusCode)
	}
	return resp.StatusCode, fmt.Sprintf("HTTP %d", resp.StatusCode)
}
