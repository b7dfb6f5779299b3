// Package policy is thumbforge's content policy: it refuses texts that contain a term
// from a configured list, matching whole words case-insensitively.
package policy

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"thumbforge/internal/core"
)

//go:embed terms.txt
var defaultTerms []byte

// publicMessage is the message of every refusal; it never names the term that matched.
const publicMessage = "The request violates the content policy."

// minPrefix is the shortest stem a trailing "*" may extend, so that a wildcard cannot
// swallow common short words.
const minPrefix = 3

// term is one refused term, split into lower-case words. When prefix is true the last
// word matches any word that begins with it.
type term struct {
	words  []string
	prefix bool
}

// Policy refuses texts containing any of its terms. It is immutable once built, so one
// Policy serves concurrent requests.
type Policy struct {
	// exact indexes terms by their first word; prefixed indexes terms whose only word is a
	// stem, by the stem's first minPrefix bytes.
	exact    map[string][]term
	prefixed map[string][]term
	n        int
}

var _ core.ContentPolicy = (*Policy)(nil)

// New builds a policy from terms. Blank terms and terms without any letter or digit are
// ignored.
func New(terms []string) *Policy {
	p := &Policy{exact: map[string][]term{}, prefixed: map[string][]term{}}
	for _, raw := range terms {
		t, ok := compile(raw)
		if !ok {
			continue
		}
		p.n++
		if len(t.words) == 1 && t.prefix {
			k := t.words[0][:minPrefix]
			p.prefixed[k] = append(p.prefixed[k], t)
			continue
		}
		p.exact[t.words[0]] = append(p.exact[t.words[0]], t)
	}
	return p
}

// Default returns the policy built from the term list shipped with thumbforge.
func Default() *Policy {
	terms, err := parse(bytes.NewReader(defaultTerms))
	if err != nil {
		// The embedded list is read from memory; failing to scan it is a build defect.
		panic(fmt.Sprintf("policy: embedded terms: %v", err))
	}
	return New(terms)
}

// Load builds a policy from a file with one term per line; lines starting with # are
// comments.
func Load(path string) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("content policy: %w", err)
	}
	defer f.Close()
	terms, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("content policy %s: %w", path, err)
	}
	return New(terms), nil
}

// Len returns how many terms the policy refuses.
func (p *Policy) Len() int { return p.n }

func parse(r io.Reader) ([]string, error) {
	var terms []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		terms = append(terms, line)
	}
	return terms, sc.Err()
}

// compile splits a term into normalised words; a trailing "*" makes the last word a stem.
func compile(raw string) (term, bool) {
	raw = strings.TrimSpace(raw)
	var t term
	if strings.HasSuffix(raw, "*") {
		t.prefix = true
		raw = strings.TrimRight(raw, "*")
	}
	t.words = words(strings.ToLower(raw), nil)
	if len(t.words) == 0 {
		return term{}, false
	}
	if t.prefix && len(t.words[len(t.words)-1]) < minPrefix {
		// A stem this short would refuse too many innocent words: match it exactly.
		t.prefix = false
	}
	return t, true
}

// Check returns a CONTENT_POLICY error naming field when text contains a refused term.
func (p *Policy) Check(field, text string) error {
	if p == nil || p.n == 0 {
		return nil
	}
	// Lower-casing once up front lets every word be a substring: no per-word allocation.
	ws := words(strings.ToLower(text), make([]string, 0, len(text)/5+1))
	for i, w := range ws {
		if p.matchAt(ws, i, w) {
			return &core.Error{Code: core.CodeContentPolicy, Message: publicMessage,
				Details: []core.Detail{{Field: field, Message: "contains a term that is not allowed"}}}
		}
	}
	return nil
}

func (p *Policy) matchAt(ws []string, i int, w string) bool {
	for _, t := range p.exact[w] {
		if t.matches(ws[i:]) {
			return true
		}
	}
	if len(w) >= minPrefix {
		for _, t := range p.prefixed[w[:minPrefix]] {
			if strings.HasPrefix(w, t.words[0]) {
				return true
			}
		}
	}
	return false
}

// matches reports whether ws begins with the term's words.
func (t term) matches(ws []string) bool {
	if len(ws) < len(t.words) {
		return false
	}
	last := len(t.words) - 1
	for j, want := range t.words {
		if j == last && t.prefix {
			if !strings.HasPrefix(ws[j], want) {
				return false
			}
			continue
		}
		if ws[j] != want {
			return false
		}
	}
	return true
}

// words appends the words of s to dst. A word is a run of Unicode letters, digits and
// combining marks, so "class" is one word and never contains "ass". Callers lower-case s.
func words(s string, dst []string) []string {
	start := -1
	for i, r := range s {
		if isWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		// ASCII fast path: most prompts are mostly ASCII.
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
