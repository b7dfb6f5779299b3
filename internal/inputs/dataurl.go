package inputs

import (
	"encoding/base64"
	"io"
	"strings"

	"thumbforge/internal/core"
)

// ParseDataURL parses a `data:image/<subtype>;base64,<payload>` URL and returns the
// lower-cased media type and the decoded bytes. Errors are INVALID_IMAGE core errors.
//
// The grammar is deliberately narrow: only image/* types, only base64, no other
// parameters and no whitespace. "data:", the media type and ";base64" match without
// regard to case (RFC 2397 and RFC 2045 say they are case-insensitive). The payload may
// use the standard or the URL-safe alphabet, padded or not, but not a mix of the two
// alphabets: browsers and most client libraries emit padded standard base64, and the
// others cost nothing to accept and are unambiguous.
func ParseDataURL(s string) (mediaType string, data []byte, err error) {
	return parseDataURL(s, -1)
}

// DataURLProblem returns why s is not a data URL that ParseDataURL reads, or "": the same
// grammar, the payload checked by decoding it to nowhere (no copy of it is made), so that
// a request's validation and the later parse cannot disagree.
func DataURLProblem(s string) string {
	_, payload, enc64, err := splitDataURL(s)
	if err != nil {
		return err.Details[0].Message
	}
	if _, err := io.Copy(io.Discard, base64.NewDecoder(enc64, strings.NewReader(payload))); err != nil {
		return msgBadBase64
	}
	return ""
}

const msgBadBase64 = "the data URL payload is not valid base64"

// splitDataURL checks everything of a data URL but the payload's characters: the media
// type (lower-cased), the payload, the encoding that decodes it, and its decoded size.
func splitDataURL(s string) (mediaType, payload string, enc64 *base64.Encoding, err *core.Error) {
	const prefix = "data:"
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return "", "", nil, invalidImage("", "the image must be a data:image/<subtype>;base64, URL", nil)
	}
	head, payload, ok := strings.Cut(s[len(prefix):], ",")
	if !ok {
		return "", "", nil, invalidImage("", "the data URL has no comma before its payload", nil)
	}
	mediaType, enc, ok := strings.Cut(head, ";")
	if !ok || !strings.EqualFold(enc, "base64") {
		return "", "", nil, invalidImage("", "the data URL must be base64-encoded (;base64,)", nil)
	}
	mediaType = strings.ToLower(mediaType)
	sub, ok := strings.CutPrefix(mediaType, "image/")
	if !ok || !isToken(sub) {
		return "", "", nil, invalidImage("", "the data URL must carry an image/<subtype> media type", nil)
	}
	if payload == "" {
		return "", "", nil, invalidImage("", "the data URL has an empty payload", nil)
	}
	// Base64 decoders skip line breaks; the grammar has none, and sizes are computed from
	// the payload's length.
	if _, enc64, ok = decodedLen(payload); !ok || strings.ContainsAny(payload, "\r\n") {
		return "", "", nil, invalidImage("", msgBadBase64, nil)
	}
	return mediaType, payload, enc64, nil
}

// parseDataURL is ParseDataURL with a cap on the decoded size (max < 0: none), checked
// from the payload length before anything is decoded.
func parseDataURL(s string, max int64) (string, []byte, error) {
	mediaType, payload, enc64, perr := splitDataURL(s)
	if perr != nil {
		return "", nil, perr
	}
	n, _, _ := decodedLen(payload)
	if max >= 0 && n > max {
		return "", nil, tooLarge("", "the image is larger than "+sizeText(max))
	}
	data := make([]byte, n)
	m, err := enc64.Decode(data, []byte(payload))
	if err != nil || int64(m) != n {
		return "", nil, invalidImage("", msgBadBase64, err)
	}
	return mediaType, data, nil
}

// decodedLen returns the exact decoded size of a base64 payload and the encoding that
// decodes it, from its length and padding alone. ok is false when the shape (alphabet
// mix, padding, length) cannot be valid base64; the decoder checks the rest.
func decodedLen(p string) (int64, *base64.Encoding, bool) {
	std := strings.ContainsAny(p, "+/")
	url := strings.ContainsAny(p, "-_")
	if std && url {
		return 0, nil, false
	}
	pad := len(p) - len(strings.TrimRight(p, "="))
	body := int64(len(p) - pad)
	switch {
	case pad > 2:
		return 0, nil, false
	case pad > 0 && len(p)%4 != 0:
		return 0, nil, false
	case body%4 == 1:
		return 0, nil, false // one leftover character encodes no whole byte
	}
	n := body/4*3 + [...]int64{0, 0, 1, 2}[body%4]
	switch {
	case url && pad > 0:
		return n, base64.URLEncoding.Strict(), true
	case url:
		return n, base64.RawURLEncoding.Strict(), true
	case pad > 0 || body%4 == 0:
		return n, base64.StdEncoding.Strict(), true
	}
	return n, base64.RawStdEncoding.Strict(), true
}

// isToken reports whether s is a non-empty media-type subtype (RFC 6838 restricted names).
func isToken(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}
