package jobs

import (
	"testing"
	"time"
)

func TestWebhookRetrySchedule(t *testing.T) {
	c := Config{}.withDefaults()
	if c.webhookAttempts() != len(DefaultWebhookRetries)+2 {
		t.Fatalf("attempts %d", c.webhookAttempts())
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := created
	var total time.Duration
	for failed := 1; failed < c.webhookAttempts(); failed++ {
		next := c.webhookRetryAt(failed, created, now)
		wait := next.Sub(now)
		switch {
		case failed == 1 && wait > time.Minute:
			t.Fatalf("first retry after %v, want within a minute", wait)
		case failed > 1 && failed <= len(DefaultWebhookRetries) && wait < c.webhookRetryAt(failed-1, created, now).Sub(now):
			t.Fatalf("retry %d waits %v, less than the one before", failed, wait)
		}
		total += wait
		now = next
	}
	if !now.Equal(created.Add(DefaultWebhookWindow)) {
		t.Fatalf("last attempt at %v, want the end of the 24-hour window", now.Sub(created))
	}
	// Past the window (a queue that was down), the next attempt is at once.
	late := created.Add(30 * time.Hour)
	if got := c.webhookRetryAt(3, created, late); !got.Equal(late) {
		t.Fatalf("late retry at %v", got)
	}
	if err := (Config{WebhookRetries: []time.Duration{time.Second, 0}}).Validate(); err == nil {
		t.Fatal("a zero wait was accepted")
	}
}
