package core

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// RequestStatus is the state of a paid request. It is stored as plain text, so later
// states (an asynchronous request's queued or cancelled) need no schema change.
type RequestStatus string

// Request states. A request is open while queued (asynchronous, accepted and waiting for
// the queue) or running; succeeded, failed and cancelled are final.
const (
	RequestQueued    RequestStatus = "queued"
	RequestRunning   RequestStatus = "running"
	RequestSucceeded RequestStatus = "succeeded"
	RequestFailed    RequestStatus = "failed"
	RequestCancelled RequestStatus = "cancelled"
)

// Request is one paid request. It owns its credit hold from the moment the credits are
// held, in the same transaction, until it finishes: succeeded charges the hold, anything
// else releases it. The reconciler reads it to settle holds whose process died.
type Request struct {
	// ID is the request id (core.RequestID, a UUIDv7; X-Request-Id).
	ID        uuid.UUID
	AccountID uuid.UUID
	// Operation is the price key: thumbnail.mdl_4_5, edit, faceswap, score, title.
	Operation     string
	Status        RequestStatus
	ReservationID uuid.UUID
	// Deadline is when the work must be over: the request's work runs under it, so an
	// open request past it (and the settle grace) belongs to a process that is gone.
	Deadline   time.Time
	CreatedAt  time.Time
	FinishedAt *time.Time
	// Async marks a request accepted with Prefer: respond-async: a job on the queue runs
	// it from Params (its validated input, a Work in JSON; read only by StartRequest).
	Async  bool
	Params []byte
	// KeyID is the API key the request counts against in the in-flight limit.
	KeyID uuid.UUID
	// Progress is how far the work is, 0..100 (100 once it succeeded).
	Progress int
	// Result is the success body (JSON, as the synchronous answer carries it); Error the
	// public error (EncodeError). Both are set when the request ends.
	Result []byte
	Error  []byte
}

// Open reports whether the request has not ended.
func (r *Request) Open() bool { return r.FinishedAt == nil }

// RequestEnd is how a request finishes.
type RequestEnd struct {
	// Status is the final state: succeeded charges the hold, any other releases it.
	Status RequestStatus
	// Result is the success body; Error the public error (EncodeError). Kept with the row.
	Result []byte
	Error  []byte
}

// OwnerKind names what owns a credit hold.
type OwnerKind string

// Hold owners: a paid request (requests table) or a persona or style in training.
const (
	OwnerRequest     OwnerKind = "request"
	OwnerCustomModel OwnerKind = "custom"
)

// Owner is what a credit hold belongs to; the zero Owner is a hold from before owners were
// recorded.
type Owner struct {
	Kind OwnerKind
	ID   uuid.UUID
}

// Hold is a held reservation with its owner as stored, for the reconciler: Request or
// Custom is set when the owner is of that kind and still exists.
type Hold struct {
	Reservation
	Request *Request
	Custom  *CustomModel
}

// HoldAction is what the reconciler does with a hold.
type HoldAction string

// Hold actions.
const (
	// HoldKeep leaves the hold: its owner is still at work.
	HoldKeep HoldAction = "keep"
	// HoldCharge keeps the credits: the work was delivered (request succeeded, record
	// completed).
	HoldCharge HoldAction = "charge"
	// HoldRelease gives the credits back: the owner failed or no longer exists.
	HoldRelease HoldAction = "release"
	// HoldExpire ends the owner as failed (its process is gone) and gives the credits back.
	HoldExpire HoldAction = "expire"
)

// Settlement is the reconciler's decision about one hold.
type Settlement struct {
	Action HoldAction
	// Reason is the public fail reason HoldExpire gives a persona or style.
	Reason string
	// Error is the public error HoldExpire gives a request (EncodeError).
	Error []byte
}

// Requests records paid requests, each the owner of its credit hold.
type Requests interface {
	// BeginRequest holds price credits for r.Operation (Reserve's rules and errors) and
	// stores r, the hold's owner, in the same transaction. It sets r.ReservationID and
	// r.CreatedAt; r.ID, AccountID, Operation, Status and Deadline are the caller's.
	BeginRequest(ctx context.Context, r *Request, price int64) error
	// FinishRequest ends an open request as end says and, in the same transaction,
	// charges its hold (succeeded) or releases it (any other status). A request already
	// finished is ErrConflict; an unknown one ErrNotFound.
	FinishRequest(ctx context.Context, id uuid.UUID, end RequestEnd) (*Request, error)
	// GetRequest returns the account's request, or ErrNotFound (also for others'). Params
	// is not read.
	GetRequest(ctx context.Context, account, id uuid.UUID) (*Request, error)
	// RequestByID returns a request whoever owns it (for the queue's jobs); Params is not
	// read.
	RequestByID(ctx context.Context, id uuid.UUID) (*Request, error)
	// StartRequest moves an open asynchronous request to running with a new deadline and
	// returns it with its Params. A finished one is returned with ErrConflict.
	StartRequest(ctx context.Context, id uuid.UUID, deadline time.Time) (*Request, error)
	// CancelRequest ends the account's open asynchronous request as cancelled with the
	// public error errBody and releases its hold, in one transaction. A finished request
	// (or a synchronous one) is returned with ErrConflict; another account's or an
	// unknown one is ErrNotFound.
	CancelRequest(ctx context.Context, account, id uuid.UUID, errBody []byte) (*Request, error)
	// TouchRequest records the progress (0..100; never lowered; below 0 records nothing)
	// of a running request and reports whether it is still open.
	TouchRequest(ctx context.Context, id uuid.UUID, progress int) (open bool, err error)
	// QueuePosition is the request's place among the queued asynchronous requests of
	// every account, oldest first (1: the next to run).
	QueuePosition(ctx context.Context, r *Request) (int, error)
	// OpenAsyncRequests lists the ids of asynchronous requests not yet finished.
	OpenAsyncRequests(ctx context.Context) ([]uuid.UUID, error)
	// PruneRequests deletes requests finished before cutoff and returns how many.
	PruneRequests(ctx context.Context, cutoff time.Time) (int, error)
}

// Holds is what the reconciler needs of the store.
type Holds interface {
	// HeldReservations returns up to limit holds still held whose id sorts after after
	// (uuid.Nil: from the first), in id order (UUIDv7: oldest first), with their owners.
	HeldReservations(ctx context.Context, after uuid.UUID, limit int) ([]Hold, error)
	// SettleHold locks the hold and its owner, reads both again, and applies what decide
	// returns, all in one transaction. HoldExpire fails an open request, or a processing
	// record (with the Settlement's reason). A hold no longer held, or one another
	// settler has locked (PostgreSQL: SKIP LOCKED), is left alone and reported as
	// HoldKeep, so that any number of replicas may reconcile at once.
	SettleHold(ctx context.Context, id uuid.UUID, decide func(Hold) Settlement) (Settlement, error)
}
