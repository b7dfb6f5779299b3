package titles

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPrompt is the prompt length, in characters, above which prompts are compacted.
const MaxPrompt = 750

// Compact shortens prompt to at most max characters by keeping its most informative
// sentences in their original order; it reports whether it changed the prompt.
// Sentences are scored by how often their content words recur in the whole prompt,
// with a bonus for the opening sentences, which usually state the topic.
func Compact(prompt string, max int) (string, bool) {
	prompt = strings.TrimSpace(prompt)
	if max <= 0 || utf8.RuneCountInString(prompt) <= max {
		return prompt, false
	}
	sents := splitSentences(prompt)
	freq := map[string]int{}
	for _, s := range sents {
		for _, w := range wordsOf(s) {
			if !stopwords[w] && !isNumber(w) {
				freq[stem(w)]++
			}
		}
	}
	type scored struct {
		i     int
		score float64
	}
	ranked := make([]scored, len(sents))
	for i, s := range sents {
		ws := wordsOf(s)
		sum := 0.0
		for _, w := range ws {
			if !stopwords[w] && !isNumber(w) {
				sum += float64(freq[stem(w)])
			} else if isNumber(w) {
				sum++ // numbers make titles specific
			}
		}
		score := sum / math.Sqrt(float64(len(ws)+1))
		score *= 1 + 0.6/float64(i+1) // the opening states the topic
		for _, w := range ws {
			if boilerplate[w] {
				score *= 0.3 // calls to action say nothing about the video
				break
			}
		}
		ranked[i] = scored{i, score}
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })

	keep := make([]bool, len(sents))
	used := 0
	kept := map[string]bool{}
	for _, r := range ranked {
		norm := normalise(sents[r.i])
		if kept[norm] {
			continue // a repeated sentence adds nothing
		}
		n := utf8.RuneCountInString(sents[r.i])
		sep := 0
		if used > 0 {
			sep = 1
		}
		if used+sep+n <= max {
			keep[r.i] = true
			kept[norm] = true
			used += sep + n
		}
	}
	var parts []string
	for i, k := range keep {
		if k {
			parts = append(parts, sents[i])
		}
	}
	if len(parts) == 0 {
		// Even the best sentence is too long: keep its beginning, cut at a word boundary.
		return truncateRunes(sents[ranked[0].i], max), true
	}
	return strings.Join(parts, " "), true
}

// boilerplate marks the sentences of a description that address the viewer, not the video.
var boilerplate = set("subscribe subscribed comment comments share thanks thank sponsor sponsored patreon link links below welcome merch notification bell")

// splitSentences splits text after ., ! or ? followed by space, and at line breaks.
func splitSentences(text string) []string {
	var out []string
	start := 0
	runes := []rune(text)
	flush := func(end int) {
		s := strings.Join(strings.Fields(string(runes[start:end])), " ")
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range runes {
		switch {
		case r == '\n':
			flush(i + 1)
		case (r == '.' || r == '!' || r == '?') && (i+1 == len(runes) || unicode.IsSpace(runes[i+1])):
			flush(i + 1)
		}
	}
	flush(len(runes))
	return out
}

// truncateRunes cuts s to at most max characters at a word boundary.
func truncateRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	cut := max
	for cut > 0 && !unicode.IsSpace(r[cut]) {
		cut--
	}
	if cut == 0 {
		return string(r[:max]) // one word longer than max: nothing whole can be kept
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool { return unicode.IsSpace(c) || strings.ContainsRune(",;:-–—", c) })
}

// stem folds simple English plurals so "laptop" and "laptops" count together.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}
