package titles

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompact(t *testing.T) {
	topic := "Sourdough bread needs a lively starter, strong flour and a long cold proof."
	filler := "Anyway, thanks to everyone who comments and shares with friends. "
	long := topic + " " + strings.Repeat(filler, 12) + "The sourdough starter and the bread flour matter most for sourdough bread."
	tests := []struct {
		name      string
		in        string
		compacted bool
		keep      []string // text that must survive
	}{
		{"short is unchanged", "How to bake bread", false, []string{"How to bake bread"}},
		{"exactly the limit", strings.Repeat("a", MaxPrompt), false, nil},
		{"multibyte counts characters", strings.Repeat("ł", MaxPrompt), false, nil},
		{"long keeps the topic sentences", long, true, []string{topic, "The sourdough starter and the bread flour matter most for sourdough bread."}},
		{"one giant sentence", strings.Repeat("word ", 400), true, nil},
		{"one giant word", strings.Repeat("x", 1000), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := Compact(tt.in, MaxPrompt)
			if ok != tt.compacted {
				t.Fatalf("compacted = %v, want %v", ok, tt.compacted)
			}
			if n := utf8.RuneCountInString(out); n > MaxPrompt || n == 0 {
				t.Fatalf("result has %d characters", n)
			}
			for _, k := range tt.keep {
				if !strings.Contains(out, k) {
					t.Fatalf("result lost %q:\n%s", k, out)
				}
			}
			if !ok && out != strings.TrimSpace(tt.in) {
				t.Fatal("uncompacted prompt changed")
			}
		})
	}
}

func TestCompactKeepsOrderAndWholeSentences(t *testing.T) {
	var sents []string
	for i := 0; i < 40; i++ {
		sents = append(sents, strings.Repeat("filler ", i%7+3)+"sentence number "+string(rune('A'+i%26))+".")
	}
	in := strings.Join(sents, " ")
	out, ok := Compact(in, 300)
	if !ok {
		t.Fatal("not compacted")
	}
	pos := -1
	for _, s := range splitSentences(out) {
		i := strings.Index(in, s)
		if i < 0 {
			t.Fatalf("sentence %q is not from the prompt", s)
		}
		if i <= pos {
			t.Fatalf("sentence %q out of order", s)
		}
		pos = i
	}
}

func TestCompactWordBoundary(t *testing.T) {
	in := strings.Repeat("abcdefghij ", 100) // one sentence, no full stop
	out, _ := Compact(in, 95)
	if !strings.HasPrefix(in, out) || strings.HasSuffix(out, " ") || len(out) != 87 {
		t.Fatalf("cut at %d: %q", len(out), out)
	}
}

// FuzzCompact checks the limit and the text's integrity for any input.
func FuzzCompact(f *testing.F) {
	f.Add("Short.", 10)
	f.Add(strings.Repeat("Sentence one is here. ", 60), 750)
	f.Add("ł ł ł. ż\n\nq!", 3)
	f.Fuzz(func(t *testing.T, in string, max int) {
		max = max%1000 + 1
		if max < 0 {
			max = -max + 1
		}
		out, ok := Compact(in, max)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input")
		}
		if ok && utf8.RuneCountInString(out) > max {
			t.Fatalf("%d characters over a limit of %d", utf8.RuneCountInString(out), max)
		}
		if !ok && out != strings.TrimSpace(in) {
			t.Fatal("changed without compacting")
		}
	})
}
