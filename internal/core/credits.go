package core

import (
	"time"

	"github.com/google/uuid"
)

// LedgerKind names a kind of credit movement.
type LedgerKind string

// Ledger movement kinds. The balance always equals the sum of the deltas.
const (
	LedgerGrant   LedgerKind = "grant"   // credits added by an operator
	LedgerTopUp   LedgerKind = "topup"   // credits added by an automatic top-up
	LedgerReserve LedgerKind = "reserve" // credits held for a request in progress
	LedgerRelease LedgerKind = "release" // a hold given back: the work failed
	LedgerCharge  LedgerKind = "charge"  // a hold kept: the work succeeded (delta 0)
)

// LedgerEntry is one movement of an account's credits.
type LedgerEntry struct {
	ID        int64      `json:"id"`
	AccountID uuid.UUID  `json:"account_id"`
	Kind      LedgerKind `json:"kind"`
	Delta     int64      `json:"delta"`
	Amount    int64      `json:"amount"`
	// Ref is the reservation, invoice or operator reference the movement belongs to.
	Ref       string    `json:"ref"`
	Operation string    `json:"operation,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ReservationState is the state of a credit hold.
type ReservationState string

// Reservation states.
const (
	ReservationHeld     ReservationState = "held"
	ReservationCharged  ReservationState = "charged"
	ReservationReleased ReservationState = "released"
)

// Reservation is credits held for one piece of work until it succeeds or fails.
type Reservation struct {
	ID        uuid.UUID        `json:"id"`
	AccountID uuid.UUID        `json:"account_id"`
	Amount    int64            `json:"amount"`
	Operation string           `json:"operation"`
	State     ReservationState `json:"state"`
	// Owner is the request or record the hold belongs to.
	Owner     Owner     `json:"-"`
	CreatedAt time.Time `json:"created_at"`
}

// InvoiceStatus is the payment state of a top-up invoice.
type InvoiceStatus string

// Invoice states: an open invoice is unpaid.
const (
	InvoiceOpen   InvoiceStatus = "open"
	InvoicePaid   InvoiceStatus = "paid"
	InvoiceFailed InvoiceStatus = "failed"
)

// Invoice records an automatic top-up that a payment provider must settle.
type Invoice struct {
	ID        uuid.UUID     `json:"id"`
	AccountID uuid.UUID     `json:"account_id"`
	Amount    int64         `json:"amount"`
	Status    InvoiceStatus `json:"status"`
	CreatedAt time.Time     `json:"created_at"`
	SettledAt *time.Time    `json:"settled_at,omitempty"`
}

// Prices is the price table in credits per operation.
type Prices map[string]int64

// Operation names used in the price table.
const (
	OpThumbnailPrefix = "thumbnail." // followed by a v2 model name
	OpEdit            = "edit"
	OpFaceSwap        = "faceswap"
	OpScore           = "score"
	OpTitle           = "title"
	OpTraining        = "training"
)

// DefaultPrices follows the hosted service's public prices, 1 credit = 1 US cent.
func DefaultPrices() Prices {
	return Prices{
		"thumbnail.mdl_4_5": 13,
		"thumbnail.mdl_4":   37,
		"thumbnail.mdl_3":   16,
		"thumbnail.mdl_2":   20,
		OpEdit:              12,
		OpFaceSwap:          12,
		OpScore:             3,
		OpTitle:             8,
		OpTraining:          38,
	}
}

// Price returns the price of op; an operation missing from the table is an error.
func (p Prices) Price(op string) (int64, bool) {
	v, ok := p[op]
	return v, ok
}
