package core

import (
	"strings"
	"unicode"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// NameKey is what two persona or style names are compared by: the name in NFKC, case
// folded (full folding: "ß" is "ss"), reduced to its Unicode TR39 confusable skeleton ("Р"
// Cyrillic and "P" Latin, "rn" and "m", "ı" and "i" meet), with whitespace runs made one
// space and trimmed. Two names with one key are the same name to the duplicate check. A
// key is for comparing only, never for display (TR39 says the same of skeletons).
func NameKey(name string) string {
	s := cases.Fold().String(norm.NFKC.String(name))
	return strings.Join(strings.FieldsFunc(confusable.Skeleton(s), unicode.IsSpace), " ")
}

// bareKey is NameKey without diacritics: the reserved check's form, so that "ádmin" and
// "ADMİN" (whose fold is "i" with a combining dot) are the reserved "admin". Duplicates
// keep their marks: "Zoë" and "Zoe" may both exist.
func bareKey(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, NameKey(name))
}

// reservedKeys are the bare keys of the reserved names.
var reservedKeys = func() map[string]bool {
	m := make(map[string]bool, len(reservedNames))
	for _, n := range reservedNames {
		m[bareKey(n)] = true
	}
	return m
}()
