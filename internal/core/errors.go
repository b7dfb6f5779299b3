// Package core holds thumbforge's domain: accounts, keys, credits, custom models,
// generation orchestration and the error codes. It imports no database driver and no
// net/http; drivers implement its interfaces.
package core

import (
	"errors"
	"fmt"
)

// Code is a public, machine-readable error code (the v2 codes of SPEC.md).
type Code string

// The version 2 error codes. The version 1 codes are derived from these by the v1 API.
const (
	CodeValidation          Code = "VALIDATION_ERROR"
	CodeInvalidPersona      Code = "INVALID_PERSONA"
	CodeInvalidStyle        Code = "INVALID_STYLE"
	CodeInvalidAmount       Code = "INVALID_AMOUNT"
	CodeContentPolicy       Code = "CONTENT_POLICY"
	CodeCannotDeleteProc    Code = "CANNOT_DELETE_PROCESSING"
	CodeSupportNotSupported Code = "SUPPORT_IMAGE_NOT_SUPPORTED"
	CodeImageTooLarge       Code = "IMAGE_TOO_LARGE"
	CodeMissingAPIKey       Code = "MISSING_API_KEY"
	CodeInvalidAPIKeyFormat Code = "INVALID_API_KEY_FORMAT"
	CodeInvalidAPIKey       Code = "INVALID_API_KEY"
	CodeAPIKeyInactive      Code = "API_KEY_INACTIVE"
	CodeAPIKeyDeleted       Code = "API_KEY_DELETED"
	CodeInsufficientCredits Code = "INSUFFICIENT_CREDITS"
	CodeSmartBalanceFailed  Code = "SMART_BALANCE_PAYMENT_FAILED"
	CodeAPIAccessNotEnabled Code = "API_ACCESS_NOT_ENABLED"
	CodeAccountSuspended    Code = "ACCOUNT_SUSPENDED"
	CodeNotFound            Code = "NOT_FOUND"
	CodeNameReserved        Code = "NAME_RESERVED"
	CodeNameAlreadyExists   Code = "NAME_ALREADY_EXISTS"
	CodeConflict            Code = "CONFLICT"
	CodeGenerationRejected  Code = "GENERATION_REJECTED"
	CodeCancelled           Code = "CANCELLED"
	CodeGenerationFailed    Code = "GENERATION_FAILED"
	CodeInvalidImage        Code = "INVALID_IMAGE"
	CodeInternal            Code = "INTERNAL_ERROR"
	CodeMaintenance         Code = "SERVICE_UNDER_MAINTENANCE"
	CodeGenerationTimeout   Code = "GENERATION_TIMEOUT"
	CodeScoringTimeout      Code = "SCORING_TIMEOUT"
	CodeTitleTimeout        Code = "TITLE_TIMEOUT"
	CodeTooManyRequests     Code = "TOO_MANY_REQUESTS"
	// CodeAdminToken is thumbforge's own: an /admin/api request without the valid admin token.
	CodeAdminToken Code = "INVALID_ADMIN_TOKEN"
	// CodeIdempotencyReused is thumbforge's own: an Idempotency-Key sent again with
	// another request.
	CodeIdempotencyReused Code = "IDEMPOTENCY_KEY_REUSED"
)

// AllCodes lists every version 2 code, in SPEC.md order, then thumbforge's own.
var AllCodes = []Code{
	CodeValidation, CodeInvalidPersona, CodeInvalidStyle, CodeInvalidAmount, CodeContentPolicy,
	CodeCannotDeleteProc, CodeSupportNotSupported, CodeImageTooLarge, CodeMissingAPIKey,
	CodeInvalidAPIKeyFormat, CodeInvalidAPIKey, CodeAPIKeyInactive, CodeAPIKeyDeleted,
	CodeInsufficientCredits, CodeSmartBalanceFailed, CodeAPIAccessNotEnabled, CodeAccountSuspended,
	CodeNotFound, CodeNameReserved, CodeNameAlreadyExists, CodeConflict, CodeGenerationRejected,
	CodeCancelled, CodeGenerationFailed, CodeInvalidImage, CodeInternal, CodeMaintenance,
	CodeGenerationTimeout, CodeScoringTimeout, CodeTitleTimeout, CodeTooManyRequests,
	CodeAdminToken, CodeIdempotencyReused,
}

// Detail is one problem found in a request, naming the field when there is one.
type Detail struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Error is an error safe to show to a client: a code, a public message and, for
// validation, the list of problems. Err, when set, is the internal cause for the log only.
type Error struct {
	Code    Code
	Message string
	Details []Detail
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// E builds a public error with a code and a message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds a public error that keeps cause for the log.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Invalid builds a VALIDATION_ERROR carrying every problem found.
func Invalid(details []Detail) *Error {
	return &Error{Code: CodeValidation, Message: "The request is invalid.", Details: details}
}

// AsError returns the public error inside err, or nil when err carries none.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf returns the public code of err; unknown errors are INTERNAL_ERROR.
func CodeOf(err error) Code {
	if e := AsError(err); e != nil {
		return e.Code
	}
	return CodeInternal
}

// Store sentinels: drivers map their own errors to these.
var (
	// ErrNotFound means the record does not exist (or is not visible to the caller).
	ErrNotFound = errors.New("not found")
	// ErrConflict means a uniqueness rule was violated.
	ErrConflict = errors.New("conflict")
	// ErrInsufficient means a balance could not cover an amount.
	ErrInsufficient = errors.New("insufficient balance")
)
