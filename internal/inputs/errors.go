package inputs

import (
	"strconv"
	"strings"

	"thumbforge/internal/core"
)

// msgFetchFailed is the public answer for a URL that could not be fetched. An address the
// guard refuses gets the same words as a name that does not resolve, so that a client
// cannot probe which internal names exist.
const msgFetchFailed = "the image URL could not be fetched"

// imageError builds the public error for an image input: a sentence for the message and
// the same reason, naming the field, as the detail. cause is kept for the log only.
func imageError(code core.Code, field, reason string, cause error) *core.Error {
	return &core.Error{
		Code:    code,
		Message: sentence(reason),
		Details: []core.Detail{{Field: field, Message: reason}},
		Err:     cause,
	}
}

func invalidImage(field, reason string, cause error) *core.Error {
	return imageError(core.CodeInvalidImage, field, reason, cause)
}

func tooLarge(field, reason string) *core.Error {
	return imageError(core.CodeImageTooLarge, field, reason, nil)
}

// withField returns err with its details naming field (ParseDataURL and Decode errors are
// built before the field is known to every caller).
func withField(err error, field string) error {
	e := core.AsError(err)
	if e == nil {
		return err
	}
	c := *e
	c.Details = make([]core.Detail, len(e.Details))
	for i, d := range e.Details {
		d.Field = field
		c.Details[i] = d
	}
	return &c
}

// sentence capitalises reason and ends it with a period.
func sentence(reason string) string {
	if reason == "" {
		return reason
	}
	return strings.ToUpper(reason[:1]) + reason[1:] + "."
}

// sizeText renders a byte limit the way a client reads it ("10 MB").
func sizeText(n int64) string {
	const mb = 1 << 20
	if n >= mb && n%mb == 0 {
		return itoa(n/mb) + " MB"
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return itoa(n/(1<<10)) + " KB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
