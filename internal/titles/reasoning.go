package titles

import "strings"

// usedSlot reports whether a slot value appears in a title outside the key phrase.
func usedSlot(titles []string, v, key string) bool {
	for _, t := range titles {
		if strings.Contains(strings.Replace(strings.ToLower(t), strings.ToLower(key), "", 1), strings.ToLower(v)) {
			return true
		}
	}
	return false
}

// otherNames lists up to three entities not already in the key phrase or the used slots.
func otherNames(entities []string, key string, used []string) []string {
	var out []string
	for _, e := range entities {
		if len(out) == 3 {
			break
		}
		if strings.Contains(strings.ToLower(key), strings.ToLower(e)) || containsFold(used, e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// containsWord reports whether s has w as a whole word, ignoring case.
func containsWord(s, w string) bool {
	lw := strings.ToLower(w)
	for _, x := range wordsOf(s) {
		if x == lw {
			return true
		}
	}
	return false
}
