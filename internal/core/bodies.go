package core

import (
	"bytes"
	"encoding/json"
)

// The version 2 success bodies of the generating requests. The API answers with them and a
// request keeps them (Request.Result), so GET /v2/requests/{id} repeats the same body.

// OutputBody is the answer of a request that makes an image.
type OutputBody struct {
	Output    string `json:"output"`
	RequestID string `json:"request_id,omitempty"` // version 1 answers carry none
}

// ScoreBody is the answer of a scoring request.
type ScoreBody struct {
	Score
	RequestID string `json:"request_id"`
}

// TitlesBody is the answer of a title request.
type TitlesBody struct {
	Outputs         []string `json:"outputs"`
	PromptCompacted bool     `json:"prompt_compacted"`
	Reasoning       string   `json:"reasoning"`
	RequestID       string   `json:"request_id"`
}

// InternalMessage is the public message of every INTERNAL_ERROR: its cause stays in the
// log.
const InternalMessage = "Internal error. Quote the request_id when reporting it."

// errorBody is a request's kept public error: the "error" object of the v2 error body.
type errorBody struct {
	Code    Code     `json:"code"`
	Message string   `json:"message"`
	Details []Detail `json:"details,omitempty"`
}

// EncodeError is err as a request keeps it: its public code, message and details; an
// error without a public code, or an internal one, keeps only the generic message.
func EncodeError(err error) []byte {
	e := AsError(err)
	if e == nil || e.Code == CodeInternal {
		e = &Error{Code: CodeInternal, Message: InternalMessage}
	}
	b, _ := encodeJSON(errorBody{Code: e.Code, Message: e.Message, Details: e.Details})
	return b
}

// DecodeError reads an error EncodeError wrote (nil for none).
func DecodeError(b []byte) *Error {
	if len(b) == 0 {
		return nil
	}
	var eb errorBody
	if err := json.Unmarshal(b, &eb); err != nil {
		return &Error{Code: CodeInternal, Message: InternalMessage}
	}
	return &Error{Code: eb.Code, Message: eb.Message, Details: eb.Details}
}

// encodeJSON writes v as the API does: links keep their "&", no trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
