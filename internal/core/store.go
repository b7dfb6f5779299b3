package core

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
)

// ErrPaymentFailed means an automatic top-up is blocked by a failed or unpaid invoice.
var ErrPaymentFailed = errors.New("top-up blocked by a failed or unpaid invoice")

// ErrProcessing means a custom model cannot be deleted while it is training.
var ErrProcessing = errors.New("custom model is processing")

// Accounts stores accounts.
type Accounts interface {
	CreateAccount(ctx context.Context, a *Account) error
	GetAccount(ctx context.Context, id uuid.UUID) (*Account, error)
	ListAccounts(ctx context.Context) ([]Account, error)
	// UpdateAccount loads the account, lets fn change it, and saves it, in one transaction.
	// The balance is not saved by UpdateAccount: credits move only through Credits.
	UpdateAccount(ctx context.Context, id uuid.UUID, fn func(*Account) error) (*Account, error)
}

// Keys stores API keys.
type Keys interface {
	CreateKey(ctx context.Context, k *APIKey) error
	// KeyByHash returns the key with this hash and its account, or ErrNotFound.
	KeyByHash(ctx context.Context, hash []byte) (*APIKey, *Account, error)
	GetKey(ctx context.Context, id uuid.UUID) (*APIKey, error)
	ListKeys(ctx context.Context, account uuid.UUID) ([]APIKey, error)
	SetKeyStatus(ctx context.Context, id uuid.UUID, s KeyStatus) error
}

// Credits moves credits. Every movement writes a ledger row in the same transaction, and
// no method ever lets a balance go below zero, under any concurrency.
type Credits interface {
	// Grant adds amount (> 0) credits and returns the new balance.
	Grant(ctx context.Context, account uuid.UUID, amount int64, ref string) (int64, error)
	// Reserve holds amount credits for op on behalf of owner. When the balance is short and
	// the account has an automatic top-up that covers the shortfall, it opens an invoice,
	// grants the top-up and holds, all at once. It fails with ErrInsufficient, or
	// ErrPaymentFailed when an open or failed invoice blocks the top-up. Paid work holds
	// through BeginRequest and CreateTraining, which store the owner in the same
	// transaction; a hold whose owner does not exist is released by the reconciler.
	Reserve(ctx context.Context, account uuid.UUID, amount int64, op string, owner Owner) (*Reservation, error)
	// Charge keeps a held reservation: the work succeeded. Charging twice is an error.
	Charge(ctx context.Context, id uuid.UUID) error
	// Release gives a held reservation back. Releasing a finished one does nothing.
	Release(ctx context.Context, id uuid.UUID) error
	Ledger(ctx context.Context, account uuid.UUID, limit int) ([]LedgerEntry, error)
	Invoices(ctx context.Context, account uuid.UUID) ([]Invoice, error)
	// SettleInvoice marks an open invoice paid or failed.
	SettleInvoice(ctx context.Context, id uuid.UUID, status InvoiceStatus) error
}

// Settings stores service-wide switches.
type Settings interface {
	Maintenance(ctx context.Context) (bool, error)
	SetMaintenance(ctx context.Context, on bool) error
}

// AdminTokens keeps the operator's admin token, as its hash only (one token at a time).
type AdminTokens interface {
	// SetAdminTokenHash stores the hash of a new admin token, replacing the earlier one.
	SetAdminTokenHash(ctx context.Context, hash []byte) error
	// AdminTokenHash returns the stored hash, or ErrNotFound when no token was ever made.
	AdminTokenHash(ctx context.Context) ([]byte, error)
}

// Outputs records stored blobs that expire, so a sweep can delete them.
type Outputs interface {
	// RecordOutput remembers o (Key, AccountID, ExpiresAt, and what made it); recording a
	// key again moves its expiry.
	RecordOutput(ctx context.Context, o Output) error
	// ExpiredOutputs returns up to limit keys that expired before now.
	ExpiredOutputs(ctx context.Context, now time.Time, limit int) ([]string, error)
	DeleteOutput(ctx context.Context, key string) error
}

// CustomModels stores personas and styles.
type CustomModels interface {
	// CreateCustomModel fails with ErrConflict when the account has one of that mode and name.
	CreateCustomModel(ctx context.Context, m *CustomModel) error
	// CreateTraining stores m as a new processing record and holds price credits for its
	// training, owned by the record, in one transaction (the errors of CreateCustomModel
	// and Reserve); it sets m.ReservationID. No hold ever exists without its record.
	CreateTraining(ctx context.Context, m *CustomModel, price int64) error
	// GetCustomModel returns the account's record, or ErrNotFound (also for others' records).
	GetCustomModel(ctx context.Context, account, id uuid.UUID) (*CustomModel, error)
	// CustomModelByID returns a record whoever owns it; for background jobs.
	CustomModelByID(ctx context.Context, id uuid.UUID) (*CustomModel, error)
	ListCustomModels(ctx context.Context, account uuid.UUID) ([]CustomModel, error)
	// UpdateCustomModel loads, lets fn change, and saves the record in one transaction. An
	// update that ends a processing record settles its hold in the same transaction, as
	// FinishTraining does.
	UpdateCustomModel(ctx context.Context, id uuid.UUID, fn func(*CustomModel) error) (*CustomModel, error)
	// FinishTraining lets fn end a processing record (completed or failed) and, in the same
	// transaction, charges its hold (completed) or releases it (failed). charged reports
	// that this call charged the hold.
	FinishTraining(ctx context.Context, id uuid.UUID, fn func(*CustomModel) error) (m *CustomModel, charged bool, err error)
	// DeleteCustomModel deletes the account's record; ErrProcessing while it trains.
	DeleteCustomModel(ctx context.Context, account, id uuid.UUID) (*CustomModel, error)
}

// Store is everything the service persists.
type Store interface {
	Accounts
	Keys
	Credits
	Settings
	AdminTokens
	Outputs
	CustomModels
	Requests
	Holds
	Listings
	Idempotency
	Webhooks
	Ping(ctx context.Context) error
	Close() error
}

// Blobs stores binary objects and hands out expiring links to them.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
	// URL returns a link that serves the object until expires.
	URL(ctx context.Context, key string, expires time.Time) (string, error)
}

// Limiter bounds the requests in flight per key.
type Limiter interface {
	// Acquire takes a slot for key if fewer than limit are taken; release gives it back.
	Acquire(ctx context.Context, key string, limit int) (release func(), ok bool, err error)
}
