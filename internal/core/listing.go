package core

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Output is a stored generated image that expires: what GET /v2/outputs lists.
type Output struct {
	Key       string
	AccountID uuid.UUID
	// RequestID and Operation say which request made it and what it was (thumbnail.mdl_4_5,
	// edit, faceswap); empty for outputs recorded before they were kept.
	RequestID string
	Operation string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// UsageDay is what an account was charged for one operation on one UTC day.
type UsageDay struct {
	Date      string `json:"date"` // YYYY-MM-DD
	Operation string `json:"operation"`
	Count     int64  `json:"count"`
	Credits   int64  `json:"credits"`
}

// PageAfter says where a page of a newest-first list starts: after the item of this time
// and key (zero: at the newest).
type PageAfter struct {
	Time time.Time
	Key  string
}

// Listings reads an account's history a page at a time, newest first.
type Listings interface {
	// LedgerPage returns up to limit ledger rows with ids below before (0: the newest).
	LedgerPage(ctx context.Context, account uuid.UUID, before int64, limit int) ([]LedgerEntry, error)
	// Usage sums the account's charges per UTC day and operation, for days in [from, to).
	Usage(ctx context.Context, account uuid.UUID, from, to time.Time) ([]UsageDay, error)
	// CustomModelsPage returns up to limit of the account's records of mode (all modes when
	// empty), newest first, after the given place.
	CustomModelsPage(ctx context.Context, account uuid.UUID, mode Mode, after PageAfter, limit int) ([]CustomModel, error)
	// OutputsPage returns up to limit of the account's outputs not expired at now, newest
	// first, after the given place.
	OutputsPage(ctx context.Context, account uuid.UUID, now time.Time, after PageAfter, limit int) ([]Output, error)
}

type operationKey struct{}

// withOperation carries the paid operation a request runs, so the output it stores can say.
func withOperation(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, operationKey{}, op)
}

// operationOf returns the operation withOperation set, or "".
func operationOf(ctx context.Context) string {
	op, _ := ctx.Value(operationKey{}).(string)
	return op
}
