package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"thumbforge/internal/core"
)

// statusOf is the one table from v2 error codes to HTTP statuses (DESIGN §3).
var statusOf = map[core.Code]int{
	core.CodeValidation:          http.StatusBadRequest,
	core.CodeInvalidPersona:      http.StatusBadRequest,
	core.CodeInvalidStyle:        http.StatusBadRequest,
	core.CodeInvalidAmount:       http.StatusBadRequest,
	core.CodeContentPolicy:       http.StatusBadRequest,
	core.CodeCannotDeleteProc:    http.StatusBadRequest,
	core.CodeSupportNotSupported: http.StatusBadRequest,
	core.CodeInvalidImage:        http.StatusBadRequest,
	core.CodeMissingAPIKey:       http.StatusUnauthorized,
	core.CodeInvalidAPIKeyFormat: http.StatusUnauthorized,
	core.CodeInvalidAPIKey:       http.StatusUnauthorized,
	core.CodeAPIKeyInactive:      http.StatusUnauthorized,
	core.CodeAPIKeyDeleted:       http.StatusUnauthorized,
	core.CodeAdminToken:          http.StatusUnauthorized,
	core.CodeInsufficientCredits: http.StatusPaymentRequired,
	core.CodeSmartBalanceFailed:  http.StatusPaymentRequired,
	core.CodeAPIAccessNotEnabled: http.StatusForbidden,
	core.CodeAccountSuspended:    http.StatusForbidden,
	core.CodeNotFound:            http.StatusNotFound,
	core.CodeNameReserved:        http.StatusConflict,
	core.CodeNameAlreadyExists:   http.StatusConflict,
	core.CodeConflict:            http.StatusConflict,
	core.CodeImageTooLarge:       http.StatusRequestEntityTooLarge,
	core.CodeGenerationRejected:  http.StatusUnprocessableEntity,
	core.CodeIdempotencyReused:   http.StatusUnprocessableEntity,
	core.CodeTooManyRequests:     http.StatusTooManyRequests,
	core.CodeCancelled:           499,
	core.CodeGenerationFailed:    http.StatusInternalServerError,
	core.CodeInternal:            http.StatusInternalServerError,
	core.CodeMaintenance:         http.StatusServiceUnavailable,
	core.CodeGenerationTimeout:   http.StatusGatewayTimeout,
	core.CodeScoringTimeout:      http.StatusGatewayTimeout,
	core.CodeTitleTimeout:        http.StatusGatewayTimeout,
}

// StatusOf returns the HTTP status of a v2 code.
func StatusOf(c core.Code) int {
	if s, ok := statusOf[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// retryAfter is the Retry-After value, in seconds, for codes that ask the client to retry.
var retryAfter = map[core.Code]string{
	core.CodeTooManyRequests: "1",
	core.CodeMaintenance:     "60",
}

// Version says which API version's error body a route renders.
type Version int

// API versions.
const (
	V1 Version = 1
	V2 Version = 2
)

// publicError turns any error into a safe public one; unknown errors are logged with the
// request id and become INTERNAL_ERROR with a generic message.
func publicError(r *http.Request, log *slog.Logger, err error) *core.Error {
	e := core.AsError(err)
	if e == nil {
		e = core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	if e.Err != nil && (e.Code == core.CodeInternal || e.Code == core.CodeGenerationFailed) {
		log.ErrorContext(r.Context(), "request failed", "request_id", core.RequestID(r.Context()),
			"code", e.Code, "err", e.Err)
	}
	if e.Code == core.CodeInternal {
		// Never let a cause's text reach the client, whatever wrapped it.
		e = &core.Error{Code: core.CodeInternal, Message: core.InternalMessage}
	}
	return e
}

type v2ErrorBody struct {
	Error struct {
		Code    core.Code     `json:"code"`
		Message string        `json:"message"`
		Details []core.Detail `json:"details,omitempty"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

// v2Body is the v2 error body of e for the request id.
func v2Body(e *core.Error, requestID string) *v2ErrorBody {
	var b v2ErrorBody
	b.Error.Code = e.Code
	b.Error.Message = e.Message
	if e.Code == core.CodeValidation || len(e.Details) > 0 {
		b.Error.Details = e.Details
	}
	b.RequestID = requestID
	return &b
}

func writeV2Error(w http.ResponseWriter, r *http.Request, e *core.Error) {
	b := v2Body(e, core.RequestID(r.Context()))
	if ra, ok := retryAfter[e.Code]; ok {
		w.Header().Set("Retry-After", ra)
	}
	writeJSON(w, StatusOf(e.Code), b)
}

// v1Error is a version 1 error: its own code set and status.
type v1Error struct {
	Status  int
	Code    string
	Message string
	Details string
}

func (e *v1Error) Error() string { return e.Code + ": " + e.Message }

// toV1 maps a v2 code onto the version 1 table of SPEC.md.
func toV1(e *core.Error) *v1Error {
	out := &v1Error{Message: e.Message, Details: joinDetails(e.Details)}
	code := e.Code
	if code == core.CodeGenerationRejected && errors.Is(e, core.ErrModeration) {
		// An image model's safety system refused: v1 has a code for exactly that.
		code = core.CodeContentPolicy
	}
	switch code {
	case core.CodeContentPolicy:
		out.Status, out.Code = 400, "CONTENT_POLICY_VIOLATION"
	case core.CodeMissingAPIKey, core.CodeInvalidAPIKeyFormat, core.CodeInvalidAPIKey,
		core.CodeAPIKeyInactive, core.CodeAPIKeyDeleted, core.CodeAccountSuspended,
		core.CodeAPIAccessNotEnabled:
		out.Status, out.Code = 401, "INVALID_AUTH_HEADER"
		out.Details = string(e.Code)
	case core.CodeInsufficientCredits, core.CodeSmartBalanceFailed:
		out.Status, out.Code = 402, "INSUFFICIENT_BALANCE"
	case core.CodeTooManyRequests:
		out.Status, out.Code = 429, "CONCURRENT_LIMIT_EXCEEDED"
	case core.CodeMaintenance:
		out.Status, out.Code = 503, "MAINTENANCE_ACTIVE"
	case core.CodeNotFound:
		out.Status, out.Code = 404, "NOT_FOUND"
	case core.CodeConflict, core.CodeIdempotencyReused:
		// Only an Idempotency-Key (a header version 1 never had) meets these on a v1 route:
		// they keep their own code and status.
		out.Status, out.Code = StatusOf(e.Code), string(e.Code)
	case core.CodeCancelled:
		out.Status, out.Code = 499, "INTERNAL_ERROR"
	case core.CodeInternal, core.CodeGenerationFailed, core.CodeGenerationTimeout,
		core.CodeScoringTimeout, core.CodeTitleTimeout:
		out.Status, out.Code = 500, "INTERNAL_ERROR"
	default: // validation, images, personas, styles, rejections, names
		out.Status, out.Code = 400, "BAD_REQUEST"
	}
	if out.Details == "" {
		out.Details = string(e.Code)
	}
	return out
}

func joinDetails(ds []core.Detail) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		if d.Field != "" {
			parts = append(parts, d.Field+": "+d.Message)
		} else {
			parts = append(parts, d.Message)
		}
	}
	return strings.Join(parts, "; ")
}

type v1ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details string `json:"details"`
	} `json:"error"`
}

func writeV1Error(w http.ResponseWriter, e *v1Error) {
	var b v1ErrorBody
	b.Error.Code, b.Error.Message, b.Error.Details = e.Code, e.Message, e.Details
	switch e.Code {
	case "CONCURRENT_LIMIT_EXCEEDED":
		w.Header().Set("Retry-After", retryAfter[core.CodeTooManyRequests])
	case "MAINTENANCE_ACTIVE":
		w.Header().Set("Retry-After", retryAfter[core.CodeMaintenance])
	}
	writeJSON(w, e.Status, b)
}

// writeError renders err in the body shape of version v.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, v Version, err error) {
	if v == V1 {
		if ve, ok := err.(*v1Error); ok {
			writeV1Error(w, ve)
			return
		}
		writeV1Error(w, toV1(publicError(r, log, err)))
		return
	}
	writeV2Error(w, r, publicError(r, log, err))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // output links keep their "&" as is
	_ = enc.Encode(v)
}
