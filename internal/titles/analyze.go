package titles

import (
	"math"
	"sort"
	"strings"
)

// maxKeyLen bounds the key phrase so that every template still fits YouTube's limit.
const maxKeyLen = 40

// Analysis is what the builtin generator learns from a prompt.
type Analysis struct {
	Kind  Kind
	Topic string // broad subject ("gaming", "cooking"...), empty when unknown
	// KeyPhrase is the phrase every title carries, as written in the prompt.
	KeyPhrase  string
	KeyPhrases []string // further candidates, best first
	Verb       string   // the action of a how-to ("make"), or empty
	Numbers    []string // numbers other than years, in order
	Years      []string
	Entities   []string // capitalised names and brands
	ListUnit   string   // the noun after a list's number ("tips")
	Days       string   // a number of days ("30" in "30 days")
	Minutes    string   // a number of minutes
}

// Analyze reads a prompt: its kind, topic, key phrases, numbers and named entities.
func Analyze(prompt string) Analysis {
	toks := tokenize(prompt)
	lower := make([]string, len(toks))
	for i, t := range toks {
		lower[i] = t.lower
	}
	opening := 0
	for opening < len(toks) && toks[opening].sentence == 0 {
		opening++
	}
	a := Analysis{Kind: detectKind(lower, opening), Topic: detectTopic(lower)}
	skip := make([]bool, len(toks))
	for i := 0; i+2 < len(toks); i++ {
		if lower[i] == "how" && lower[i+1] == "to" && actionVerbs[lower[i+2]] {
			if a.Verb == "" {
				a.Verb = lower[i+2]
			}
			skip[i+2] = true // the verb goes into the template, not the key phrase
		}
	}
	for i, t := range toks {
		switch {
		case isYear(t.lower):
			a.Years = appendNew(a.Years, t.text)
		case isNumber(t.lower):
			a.Numbers = appendNew(a.Numbers, t.text)
			if a.ListUnit == "" && i+1 < len(toks) && listUnits[lower[i+1]] {
				a.ListUnit = lower[i+1]
			}
			if i+1 < len(toks) {
				switch lower[i+1] {
				case "day", "days":
					a.Days = first(a.Days, t.text)
				case "minute", "minutes", "min", "mins":
					a.Minutes = first(a.Minutes, t.text)
				}
			}
		}
	}
	a.Entities = entities(toks)
	if a.Kind == KindComparison {
		if k := versus(toks); k != "" && !repeatsWord(k) {
			a.KeyPhrase = k
		}
	}
	phrases := keyPhrases(toks, skip)
	if a.KeyPhrase == "" && len(phrases) > 0 {
		a.KeyPhrase = phrases[0]
		phrases = phrases[1:]
	}
	a.KeyPhrases = phrases
	if a.KeyPhrase == "" {
		a.KeyPhrase = fallbackKey(toks)
	}
	return a
}

// repeatsWord reports whether a word of s follows itself, which no title may show.
func repeatsWord(s string) bool {
	ws := wordsOf(s)
	for i := 1; i < len(ws); i++ {
		if ws[i] == ws[i-1] {
			return true
		}
	}
	return false
}

func first(have, s string) string {
	if have != "" {
		return have
	}
	return s
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}

// content says whether a token may be part of a key phrase.
func content(t token) bool {
	return !stopwords[t.lower] && !isNumber(t.lower)
}

// runs returns the maximal sequences of phrase words, split at stopwords and punctuation.
// A number stays in a run after a capitalised word ("iPhone 15", "GTA 6"), not a year.
func runs(toks []token, skip []bool) [][]token {
	var out [][]token
	var cur []token
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i, t := range toks {
		ok := !skip[i] && content(t)
		if !ok && isNumber(t.lower) && !isYear(t.lower) {
			// "iPhone 15", "GTA 6"; and "75 Hard", but not a list's count opening a sentence.
			after := len(cur) > 0 && isCapitalised(cur[len(cur)-1].text)
			before := len(cur) == 0 && !t.first && i+1 < len(toks) && isCapitalised(toks[i+1].text) &&
				!toks[i+1].first && content(toks[i+1]) && !t.breakAft
			ok = after || before
		}
		if !ok || (len(cur) > 0 && t.sentence != cur[0].sentence) {
			flush()
		}
		if ok {
			cur = append(cur, t)
			if t.breakAft {
				flush()
			}
		}
	}
	flush()
	return out
}

// keyPhrases ranks the n-grams (n <= 3, or 4 for names) of the prompt's runs: words that recur across the
// prompt score higher, short specific phrases beat long ones, early sentences and names
// get a bonus. It returns distinct phrases, best first.
func keyPhrases(toks []token, skip []bool) []string {
	freq := map[string]int{}
	for i, t := range toks {
		if !skip[i] && (content(t) || isNumber(t.lower)) {
			freq[stem(t.lower)]++
		}
	}
	type cand struct {
		text    string
		score   float64
		n, seen int
	}
	var cands []cand
	index := map[string]int{}
	for _, run := range runs(toks, skip) {
		for n := 1; n <= 4; n++ {
			for i := 0; i+n <= len(run); i++ {
				g := run[i : i+n]
				if !usableGram(g) || (n == 4 && !allCapitalised(g)) {
					continue
				}
				words := make([]string, n)
				sum := 0.0
				caps := false
				for j, t := range g {
					words[j] = t.text
					sum += float64(freq[stem(t.lower)])
					caps = caps || (isCapitalised(t.text) && !t.first) || isBrand(t.lower)
				}
				text := strings.Join(words, " ")
				key := strings.ToLower(text)
				if len(text) > maxKeyLen {
					continue
				}
				if at, ok := index[key]; ok {
					cands[at].seen++
					continue
				}
				index[key] = len(cands)
				score := sum / math.Pow(float64(n), 0.6)
				score *= 1 + 0.5/float64(1+g[0].sentence)
				if caps {
					score *= 1.15
				}
				cands = append(cands, cand{text, score, n, 1})
			}
		}
	}
	for i, c := range cands {
		// A phrase that recurs whole ("Neapolitan pizza" twice) is the prompt's own name for
		// its subject: worth more than its most frequent word alone.
		if c.n > 1 && c.seen > 1 {
			cands[i].score *= 1 + 0.5*float64(min(c.seen, 4)-1)
		}
	}
	// Stable: equal scores keep prompt order, so the result is deterministic.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	out := make([]string, 0, 6)
	for _, c := range cands {
		if len(out) == cap(out) {
			break
		}
		out = append(out, c.text)
	}
	return out
}

// allCapitalised reports whether every word of g is capitalised: names may run to four
// words ("Taylor Swift Eras Tour"), other phrases to three.
func allCapitalised(g []token) bool {
	for _, t := range g {
		if !isCapitalised(t.text) && !isNumber(t.lower) {
			return false
		}
	}
	return true
}

// usableGram rejects grams that begin with a number (unless a name follows) or repeat a
// word back to back.
func usableGram(g []token) bool {
	if isNumber(g[0].lower) && (len(g) == 1 || !isCapitalised(g[1].text)) {
		return false
	}
	for j := 1; j < len(g); j++ {
		if g[j].lower == g[j-1].lower {
			return false
		}
	}
	return true
}

// fallbackKey is the key phrase of a prompt without content words: its longest word.
func fallbackKey(toks []token) string {
	best := ""
	for _, t := range toks {
		if len(t.text) > len(best) {
			best = t.text
		}
	}
	if len(best) > 60 {
		// One giant "word" (a hash, a blob): it cannot fit whole, and a cut word is broken.
		return ""
	}
	return best
}
