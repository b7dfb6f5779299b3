package builtin

import (
	"strings"
	"unicode"
)

// token is one word of a prompt with what headline selection needs to know about it.
type token struct {
	text    string // as written
	lower   string
	pos     int
	capital bool // capitalised and not the first word of a sentence
	number  bool
}

// tokenize splits text into words, keeping digits with their $, %, k, x and + marks
// ("$10k", "50%", "3x") because numbers make strong headlines.
func tokenize(text string) []token {
	var out []token
	sentenceStart := true
	var cur []rune
	flush := func(next rune) {
		if len(cur) > 0 {
			w := strings.Trim(string(cur), "'’-")
			if w != "" {
				r := []rune(w)
				t := token{text: w, lower: strings.ToLower(w), pos: len(out)}
				t.capital = unicode.IsUpper(r[0]) && !sentenceStart
				for _, c := range r {
					if unicode.IsDigit(c) {
						t.number = true
						break
					}
				}
				out = append(out, t)
				sentenceStart = false
			}
			cur = cur[:0]
		}
		if next == '.' || next == '!' || next == '?' || next == ':' || next == '\n' {
			sentenceStart = true
		}
	}
	for _, c := range text {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c) || c == '\'' || c == '’' || c == '-':
			cur = append(cur, c)
		case (c == '$' || c == '%' || c == '+' || c == '#') && (len(cur) > 0 || c == '$' || c == '#'):
			cur = append(cur, c)
		default:
			flush(c)
		}
	}
	flush(' ')
	return out
}

// words returns the lower-case words of text, for palette and theme analysis.
func words(text string) []string {
	ts := tokenize(text)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.lower
	}
	return out
}

var stopwords = setOf(`a an the and or but if of to in on at by for with about from into onto over under
this that these those it its it's is are was were be been being am do does did doing have has had having
i me my we our you your he she they them their his her him us what which who whom when where why how
make made create generate thumbnail thumbnails image picture photo video youtube channel style please
show showing shows can could should would will just very really so some any all more most than then
there here as not no also get got want need like using use background text title featuring feature
one ok yes`)

var strongWords = setOf(`ultimate best worst secret secrets insane epic huge free new fast easy never
always why how shocking amazing incredible hidden truth real fake win wins lost lose stop dont don't
mistake mistakes biggest first last only top proven simple crazy impossible challenge vs versus
revealed exposed finally beginner pro hack hacks million billion`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// fillers complete a one-word headline; chosen by hash so the choice is deterministic.
var fillers = []string{"REVEALED", "EXPLAINED", "UNLEASHED", "SECRETS", "MASTERED", "TODAY"}

// headline picks 2 to 5 punchy words from text: stopwords dropped, numbers, capitalised
// and strong words preferred, original order kept, upper-cased for display. Empty text
// gives no headline.
func headline(text string, seed uint64) []string {
	ts := tokenize(text)
	type cand struct {
		t     token
		score float64
	}
	var cands []cand
	seen := map[string]bool{}
	for _, t := range ts {
		if stopwords[t.lower] || seen[t.lower] || (len([]rune(t.lower)) < 2 && !t.number) {
			continue
		}
		seen[t.lower] = true
		s := 1.0
		if t.number {
			s += 5
		}
		if t.capital {
			s += 3
		}
		if strongWords[t.lower] {
			s += 4
		}
		if _, ok := pickTheme([]string{t.lower}); ok {
			s += 2
		}
		s += min(float64(len(t.lower)), 10) * 0.1
		s -= float64(t.pos) * 0.05 // earlier words usually carry the topic
		cands = append(cands, cand{t, s})
	}
	if len(cands) == 0 {
		return nil
	}
	n := min(len(cands), 4)
	if len(cands) >= 8 {
		n = 5
	}
	// Keep the n best, breaking ties by position so the choice is stable.
	chosen := make([]bool, len(cands))
	for range n {
		best := -1
		for i, c := range cands {
			if !chosen[i] && (best < 0 || c.score > cands[best].score) {
				best = i
			}
		}
		chosen[best] = true
	}
	var out []string
	for i, c := range cands {
		if chosen[i] {
			out = append(out, strings.ToUpper(c.t.text))
		}
	}
	if len(out) == 1 {
		out = append(out, fillers[hashStrings(seed, out[0])%uint64(len(fillers))])
	}
	return out
}
