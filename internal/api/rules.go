package api

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"thumbforge/internal/core"
)

// MaxPrompt is the longest prompt accepted, in characters.
const MaxPrompt = 3000

// checkPrompt applies the v2 prompt rules: 1 to 3000 characters, no "http" in any case.
func (b *body) checkPrompt(field, p string) {
	n := utf8.RuneCountInString(p)
	switch {
	case n < 1:
		b.problem(field, "must be 1 to 3000 characters long")
	case n > MaxPrompt:
		b.problem(field, "must be at most 3000 characters long")
	}
	if strings.Contains(strings.ToLower(p), "http") {
		b.problem(field, "must not contain links (the text \"http\")")
	}
}

// imageRef reads a pair of image fields (URL and data URL forms) into a reference.
// need says whether one must be present; exclusive whether both at once is a problem
// (otherwise the URL wins).
func (b *body) imageRef(urlField, dataField string, need, exclusive, httpsOnly bool) core.ImageRef {
	u, hasURL := b.str(urlField)
	d, hasData := b.str(dataField)
	switch {
	case hasURL && hasData && exclusive:
		b.problem(urlField, "send exactly one of "+urlField+" and "+dataField)
		return core.ImageRef{}
	case !hasURL && !hasData:
		if need && !b.has(urlField) && !b.has(dataField) {
			b.problem(urlField, "one of "+urlField+" and "+dataField+" is required")
		}
		return core.ImageRef{}
	case hasURL:
		if msg := checkImageURL(u, httpsOnly); msg != "" {
			b.problem(urlField, msg)
		}
		return core.ImageRef{Field: urlField, URL: u}
	default:
		if msg := checkDataURL(d); msg != "" {
			b.problem(dataField, msg)
		}
		return core.ImageRef{Field: dataField, Data: d}
	}
}

// checkImageURL applies the image URL rule: https (or http in v1), no whitespace.
func checkImageURL(u string, httpsOnly bool) string {
	if strings.IndexFunc(u, unicode.IsSpace) >= 0 {
		return "must be a URL without whitespace"
	}
	lower := strings.ToLower(u)
	switch {
	case strings.HasPrefix(lower, "https://") && len(u) > len("https://"):
		return ""
	case !httpsOnly && strings.HasPrefix(lower, "http://") && len(u) > len("http://"):
		return ""
	case httpsOnly:
		return "must be an https:// URL"
	}
	return "must be an http:// or https:// URL"
}

// checkDataURL applies the data URL rule: data:image/<subtype>;base64,<payload>.
func checkDataURL(d string) string {
	const msg = "must be a data URL of the form data:image/<type>;base64,<data>"
	rest, ok := strings.CutPrefix(d, "data:image/")
	if !ok {
		return msg
	}
	sub, payload, ok := strings.Cut(rest, ";base64,")
	if !ok || sub == "" || payload == "" {
		return msg
	}
	for _, c := range sub {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return msg
		}
	}
	return ""
}

// checkID applies a loose shape check to persona and style ids; the domain decides the rest.
func (b *body) optionalID(field string) string {
	s, ok := b.str(field)
	if ok && strings.TrimSpace(s) == "" {
		b.problem(field, "must not be empty")
	}
	return s
}
