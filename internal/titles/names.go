package titles

import "strings"

// versus builds "A vs B" from the words around "vs" or "versus".
func versus(toks []token) string {
	for i, t := range toks {
		if t.lower != "vs" && t.lower != "versus" && t.lower != "vs." {
			continue
		}
		var left, right []string
		for j := i - 1; j >= 0 && len(left) < 3; j-- {
			if toks[j].breakAft || !(content(toks[j]) || (isNumber(toks[j].lower) && !isYear(toks[j].lower))) {
				break
			}
			left = append([]string{toks[j].text}, left...)
		}
		for j := i + 1; j < len(toks) && len(right) < 3; j++ {
			if !(content(toks[j]) || (isNumber(toks[j].lower) && !isYear(toks[j].lower))) {
				break
			}
			right = append(right, toks[j].text)
			if toks[j].breakAft {
				break
			}
		}
		if len(left) == 0 || len(right) == 0 || strings.EqualFold(left[len(left)-1], right[0]) {
			continue
		}
		k := strings.Join(left, " ") + " vs " + strings.Join(right, " ")
		if len(k) <= maxKeyLen+10 {
			return k
		}
	}
	return ""
}

// entities returns capitalised word sequences not at a sentence start, and brand names.
func entities(toks []token) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 && len(cur) <= 3 {
			e := strings.Join(cur, " ")
			if len(e) <= 25 {
				out = appendNew(out, e)
			}
		}
		cur = nil
	}
	for i, t := range toks {
		// A capitalised sentence opener counts when a name follows it ("Zoë Kravitz").
		opensName := t.first && isCapitalised(t.text) && !t.breakAft && i+1 < len(toks) &&
			!toks[i+1].first && isCapitalised(toks[i+1].text) && !stopwords[toks[i+1].lower]
		name := !smallWords[t.lower] && !stopwords[t.lower] && !isNumber(t.lower) &&
			((isCapitalised(t.text) && (!t.first || opensName)) || hasInnerUpper(t.text) || isBrand(t.lower) || brands[t.lower] == t.text)
		if !name {
			flush()
			continue
		}
		cur = append(cur, t.text)
		if t.breakAft {
			flush()
		}
	}
	flush()
	return out
}

// isBrand reports whether a lower-case word is a brand whose spelling gives it away even
// when written in lower case ("iphone", "gpu"); plain words like "rust" or "apple" are not.
func isBrand(lower string) bool {
	b, ok := brands[lower]
	return ok && (hasInnerUpper(b) || isAllUpper(b))
}
