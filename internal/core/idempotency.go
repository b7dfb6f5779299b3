package core

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// IdempotencyTTL is how long the first answer to a POST sent with an Idempotency-Key is
// kept for its account.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyState says whether a keyed request is still running or its answer is kept.
type IdempotencyState string

// Idempotency record states.
const (
	IdempotencyRunning IdempotencyState = "running"
	IdempotencyDone    IdempotencyState = "done"
)

// IdempotentRequest is the record of a POST sent with an Idempotency-Key.
type IdempotentRequest struct {
	AccountID uuid.UUID
	Key       string
	// Fingerprint says what the request was (method, path, body), so that a repeat with
	// another body is told apart.
	Fingerprint []byte
	// RequestID is the id of the request that claimed the key; its answer is the one kept.
	RequestID string
	State     IdempotencyState
	// Status, Header and Body are the kept answer, once State is done.
	Status    int
	Header    map[string]string
	Body      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Idempotency stores keyed requests. The database decides which request claims a key, so
// the rule holds across replicas.
type Idempotency interface {
	// ClaimIdempotencyKey records r as running and returns nil when no live record has its
	// account and key: none, an expired one, or one still running that was claimed before
	// staleBefore (its process is taken for dead). Otherwise it returns the live record,
	// unchanged.
	ClaimIdempotencyKey(ctx context.Context, r *IdempotentRequest, staleBefore time.Time) (*IdempotentRequest, error)
	// FinishIdempotencyKey keeps the answer of the request that claimed the key. A claim
	// taken over meanwhile is left alone (ErrNotFound).
	FinishIdempotencyKey(ctx context.Context, account uuid.UUID, key, requestID string, status int, header map[string]string, body []byte) error
	// ReleaseIdempotencyKey forgets the claim of requestID: its answer is not kept and the
	// key is free again.
	ReleaseIdempotencyKey(ctx context.Context, account uuid.UUID, key, requestID string) error
	// SweepIdempotencyKeys deletes the records expired at now and returns how many.
	SweepIdempotencyKeys(ctx context.Context, now time.Time) (int, error)
}
