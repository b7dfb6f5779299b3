package engines

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Class says what kind of failure a backend had; the engine maps it to a public error
// and the pool to health and retries.
type Class int

// The failure classes.
const (
	// ClassFailed: the backend answered but produced no usable picture (non-2xx,
	// undecodable answer, execution error). GENERATION_FAILED.
	ClassFailed Class = iota
	// ClassUnavailable: the backend could not be reached or is not serving (connection
	// refused, 502/503/504, key refused). The pool marks it unhealthy and tries another.
	ClassUnavailable
	// ClassRefused: the backend's safety system refused the request. GENERATION_REJECTED.
	ClassRefused
	// ClassBusy: the backend's queue is full (429); retried after RetryAfter inside the
	// deadline.
	ClassBusy
)

var classNames = [...]string{"failed", "unavailable", "refused", "busy"}

// String names the class, as in the requests metric's outcome label.
func (c Class) String() string { return classNames[c] }

// Error is a backend failure. Detail is the backend's own text: it goes to the log,
// never to a client.
type Error struct {
	Class      Class
	Status     int           // HTTP status, 0 if none
	RetryAfter time.Duration // ClassBusy: how long the backend asked to wait (0: unsaid)
	Detail     string
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("backend ")
	b.WriteString(e.Class.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Unavailable is a backend that could not be reached or is not serving.
func Unavailable(err error) *Error { return &Error{Class: ClassUnavailable, Err: err} }

// Failed is a backend that answered without a usable picture.
func Failed(format string, args ...any) *Error {
	return &Error{Class: ClassFailed, Detail: fmt.Sprintf(format, args...)}
}

// Refused is a refusal by the backend's safety system; detail is its message.
func Refused(status int, detail string) *Error {
	return &Error{Class: ClassRefused, Status: status, Detail: detail}
}

// Busy is a full queue; retryAfter is what the backend asked (0 if it did not say).
func Busy(status int, retryAfter time.Duration, detail string) *Error {
	return &Error{Class: ClassBusy, Status: status, RetryAfter: retryAfter, Detail: detail}
}

// classOf returns err's class; errors that are not *Error count as failures.
func classOf(err error) (*Error, Class) {
	var e *Error
	if errors.As(err, &e) {
		return e, e.Class
	}
	return nil, ClassFailed
}

// maxDetail bounds how much of an error body is kept for the log.
const maxDetail = 2048

// FromResponse reads a non-2xx answer (and closes its body) into an *Error: 429 is
// Busy (with Retry-After), 401, 403, 502, 503 and 504 are Unavailable (503 with
// Retry-After is Busy: a queue that says when to come back), the rest Failed. refused,
// when not nil, tells from the body whether the answer is a safety refusal.
func FromResponse(resp *http.Response, refused func(status int, body []byte) bool) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxDetail))
	resp.Body.Close()
	detail := strings.TrimSpace(string(body))
	ra := RetryAfter(resp.Header.Get("Retry-After"))
	switch s := resp.StatusCode; {
	case refused != nil && refused(s, body):
		return Refused(s, detail)
	case s == http.StatusTooManyRequests, s == http.StatusServiceUnavailable && ra > 0:
		return Busy(s, ra, detail)
	case s == http.StatusUnauthorized, s == http.StatusForbidden, s == http.StatusBadGateway,
		s == http.StatusServiceUnavailable, s == http.StatusGatewayTimeout:
		return &Error{Class: ClassUnavailable, Status: s, Detail: detail}
	default:
		return &Error{Class: ClassFailed, Status: s, Detail: detail}
	}
}

// RetryAfter parses a Retry-After header (seconds or an HTTP date); 0 when absent or
// unreadable.
func RetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
