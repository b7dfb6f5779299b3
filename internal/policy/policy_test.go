package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

func TestCheck(t *testing.T) {
	p := New([]string{"ass", "bad word", "gore video*", "slur*", "  ", "#", "ab*"})
	tests := []struct {
		name, text string
		hit        bool
	}{
		{"plain hit", "what an ass", true},
		{"case-insensitive", "What an ASS!", true},
		{"substring of a word", "first class seats", false},
		{"prefix inside a word", "assassin's creed", false},
		{"suffix inside a word", "bass guitar", false},
		{"punctuation boundary", "(ass)", true},
		{"multi-word across spaces", "a bad    word here", true},
		{"multi-word across newline and tab", "bad\n\t word", true},
		{"multi-word across punctuation", "bad-word", true},
		{"multi-word needs all words", "bad words", false},
		{"multi-word out of order", "word bad", false},
		{"multi-word split by another word", "bad good word", false},
		{"wildcard on last word", "real gore videos", true},
		{"wildcard needs first word", "videos of gore", false},
		{"single-word stem", "slurring", true},
		{"stem must start the word", "unslurred", false},
		{"short stem is exact", "abc", false},
		{"short stem exact hit", "ab", true},
		{"unicode letters are word chars", "kaßass", false},
		{"digits are word chars", "ass2", false},
		{"accented neighbour", "éass", false},
		{"empty", "", false},
		{"only punctuation", "!!! ... ???", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Check("prompt", tt.text)
			if (err != nil) != tt.hit {
				t.Fatalf("Check(%q) = %v, want hit %v", tt.text, err, tt.hit)
			}
		})
	}
}

func TestCheckErrorShape(t *testing.T) {
	err := New([]string{"forbidden"}).Check("prompt", "a forbidden thing")
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *core.Error", err, err)
	}
	if e.Code != core.CodeContentPolicy || e.Message != "The request violates the content policy." {
		t.Fatalf("got %s %q", e.Code, e.Message)
	}
	if len(e.Details) != 1 || e.Details[0].Field != "prompt" || e.Details[0].Message == "" {
		t.Fatalf("details %+v", e.Details)
	}
	if strings.Contains(strings.ToLower(e.Error()), "forbidden") {
		t.Fatalf("error echoes the term: %v", e)
	}
}

func TestDefault(t *testing.T) {
	p := Default()
	if p.Len() < 20 {
		t.Fatalf("default policy has %d terms", p.Len())
	}
	refused := []string{"child porn video", "free PORN site", "pornography", "beheading video leak",
		"Real-Gore compilation", "hentai art", "call him a faggot"}
	for _, s := range refused {
		if p.Check("prompt", s) == nil {
			t.Errorf("default policy accepts %q", s)
		}
	}
	allowed := []string{"How to fix a classic bass guitar", "Top 10 spicy ramen recipes", "Al Gore on climate",
		"Maine Coon cat care", "A chink in the armour", "Sussex travel vlog", "Pokemon cards unboxing",
		"Execution of a perfect backflip", "Cum laude graduation day", "Scunthorpe United highlights"}
	for _, s := range allowed {
		if err := p.Check("prompt", s); err != nil {
			t.Errorf("default policy refuses %q: %v", s, err)
		}
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "terms.txt")
	if err := os.WriteFile(path, []byte("# comment\n\nfoo bar\n  baz*  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 2 {
		t.Fatalf("Len = %d, want 2", p.Len())
	}
	if p.Check("f", "FOO, bar") == nil || p.Check("f", "bazooka") == nil || p.Check("f", "comment") != nil {
		t.Fatal("loaded policy does not match its file")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func TestNilAndEmptyPolicy(t *testing.T) {
	var p *Policy
	if p.Check("prompt", "anything") != nil || New(nil).Check("prompt", "anything") != nil {
		t.Fatal("empty policy refused a text")
	}
}

// FuzzCheck checks the matcher's invariants on arbitrary text: a term surrounded by
// spaces is always found, and a text that does not contain the term's letters never is.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"", "class", "bad word", "BAD\u00a0WORD", "ba d", "x\x00y", "\xff\xfe", "ǅ ǆ", "ẞ"} {
		f.Add(s, s)
	}
	p := New([]string{"bad word", "zqv*"})
	f.Fuzz(func(t *testing.T, a, b string) {
		if p.Check("f", a+" bad \t WORD "+b) == nil {
			t.Fatalf("missed the term between %q and %q", a, b)
		}
		if p.Check("f", a+" zqvx "+b) == nil {
			t.Fatalf("missed the stem between %q and %q", a, b)
		}
		text := a + b
		l := strings.ToLower(text)
		if err := p.Check("f", text); err != nil && !(strings.Contains(l, "bad") && strings.Contains(l, "word")) && !strings.Contains(l, "zqv") {
			t.Fatalf("Check(%q) hit without the term: %v", text, err)
		}
	})
}

func BenchmarkCheck3000(b *testing.B) {
	p := Default()
	var sb strings.Builder
	for sb.Len() < 3000 {
		sb.WriteString("A relaxed travel vlog through Kyoto's classic temples, tasting matcha and street food, ")
	}
	text := sb.String()[:3000]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Check("prompt", text); err != nil {
			b.Fatal(err)
		}
	}
}
