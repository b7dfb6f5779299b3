package api

import (
	"fmt"
	"strings"
	"thumbforge/internal/inputs"
	"unicode"
	"unicode/utf8"

	"thumbforge/internal/core"
)

// MaxPrompt is the longest prompt accepted, in characters.
const MaxPrompt = 3000

// checkPrompt applies the v2 prompt rules: textProblem's, and no "http" in any case.
func (b *body) checkPrompt(field, p string) {
	if msg := textProblem(p, 1, MaxPrompt, false); msg != "" {
		b.problem(field, msg)
	}
}

// textProblem is the one rule for text that reaches an engine (prompts, edit instructions,
// special instructions): between min and max characters, not only whitespace, no control
// characters but line breaks and tabs, and (links false) no "http" in any letter case.
// It returns what is wrong, or "".
func textProblem(s string, min, max int, links bool) string {
	n := utf8.RuneCountInString(s)
	switch {
	case n < min || n > max:
		if min == 0 {
			return fmt.Sprintf("must be at most %d characters long", max)
		}
		return fmt.Sprintf("must be %d to %d characters long", min, max)
	case n > 0 && strings.TrimFunc(s, unicode.IsSpace) == "":
		return "must not be only whitespace"
	case strings.IndexFunc(s, isForbiddenControl) >= 0:
		return "must not contain control characters (line breaks and tabs are allowed)"
	case !links && strings.Contains(strings.ToLower(s), "http"):
		return "must not contain links (the text \"http\")"
	}
	return ""
}

// isForbiddenControl reports a control character other than a line break or a tab.
func isForbiddenControl(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t'
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

// checkDataURL applies the data URL rule, data:image/<subtype>;base64,<payload>, with
// the parser's own grammar (inputs.DataURLProblem): "data:", the type and ";base64" in any
// letter case, as RFC 2397 has them.
func checkDataURL(d string) string {
	if inputs.DataURLProblem(d) != "" {
		return "must be a data URL of the form data:image/<type>;base64,<data>"
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
