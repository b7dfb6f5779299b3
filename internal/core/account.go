package core

import (
	"time"

	"github.com/google/uuid"
)

// DefaultConcurrency is the in-flight request limit of an account unless set otherwise.
const DefaultConcurrency = 10

// Account is a customer of the service: it owns keys, credits and custom models.
type Account struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	Suspended   bool      `json:"suspended"`
	APIAccess   bool      `json:"api_access"`
	Concurrency int       `json:"concurrency"`
	Balance     int64     `json:"balance"`
	// TopUpAmount is the automatic top-up ("smart balance") amount in credits; 0 is off.
	TopUpAmount int64     `json:"topup_amount"`
	CreatedAt   time.Time `json:"created_at"`
}

// KeyStatus is the lifecycle state of an API key.
type KeyStatus string

// API key states.
const (
	KeyActive   KeyStatus = "active"
	KeyInactive KeyStatus = "inactive"
	KeyDeleted  KeyStatus = "deleted"
)

// APIKey is a stored API key: only the SHA-256 hash of the secret is kept.
type APIKey struct {
	ID        uuid.UUID `json:"id"`
	AccountID uuid.UUID `json:"account_id"`
	// Prefix is the first characters of the secret, for display.
	Prefix    string    `json:"prefix"`
	Hash      []byte    `json:"-"`
	Status    KeyStatus `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// Principal is who a request acts for, once authenticated.
type Principal struct {
	Account *Account
	Key     *APIKey
}
