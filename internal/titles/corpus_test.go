package titles

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"thumbforge/internal/core"
)

func loadCorpus(t testing.TB) []string {
	t.Helper()
	f, err := os.Open("testdata/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// templateVocabulary is every word the templates may contribute to a title.
func templateVocabulary() map[string]bool {
	v := map[string]bool{}
	add := func(list []string) {
		for _, tmpl := range list {
			for _, w := range wordsOf(tmpl) {
				v[w] = true
			}
		}
	}
	for _, l := range kindTemplates {
		add(l)
	}
	add(genericTemplates)
	add(moodTemplates)
	for _, l := range imageTemplates {
		add(l)
	}
	for _, m := range []string{"dramatic", "dark", "vibrant", "bright", "calm", "bold", "quiet", "vs"} {
		v[m] = true
	}
	return v
}

// checkTitles applies the rules every answer must keep.
func checkTitles(t *testing.T, prompt string, res core.TitleResult, count int, key string, vocab map[string]bool) {
	t.Helper()
	if len(res.Titles) != count {
		t.Errorf("%q: got %d titles, want %d: %q", prompt, len(res.Titles), count, res.Titles)
	}
	promptWords := map[string]bool{}
	for _, w := range wordsOf(prompt) {
		promptWords[w] = true
	}
	seen := map[string]bool{}
	for _, title := range res.Titles {
		if n := utf8.RuneCountInString(title); n == 0 || n > MaxTitleLen {
			t.Errorf("%q: title %q has %d characters", prompt, title, n)
		}
		for _, hole := range []string{"{", "}", "%s", "%v", "  ", "<nil>"} {
			if strings.Contains(title, hole) {
				t.Errorf("%q: title %q contains %q", prompt, title, hole)
			}
		}
		if title != strings.TrimSpace(title) {
			t.Errorf("%q: title %q has outer spaces", prompt, title)
		}
		ws := wordsOf(title)
		for i, w := range ws {
			if i > 0 && ws[i-1] == w {
				t.Errorf("%q: title %q repeats %q back to back", prompt, title, w)
			}
			// A word neither from the prompt nor from a template is a broken word.
			if !promptWords[w] && !vocab[w] {
				t.Errorf("%q: title %q has a word %q from nowhere", prompt, title, w)
			}
		}
		n := normalise(title)
		if seen[n] {
			t.Errorf("%q: duplicate title %q", prompt, title)
		}
		seen[n] = true
		if key != "" && !strings.Contains(strings.ToLower(title), strings.ToLower(key)) {
			t.Errorf("%q: title %q lacks key phrase %q", prompt, title, key)
		}
	}
	if strings.TrimSpace(res.Reasoning) == "" {
		t.Errorf("%q: empty reasoning", prompt)
	}
}

func TestCorpus(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 40 {
		t.Fatalf("corpus has %d prompts, want at least 40", len(corpus))
	}
	vocab := templateVocabulary()
	b := &Builtin{}
	short, total := 0, 0
	for _, prompt := range corpus {
		for _, count := range []int{0, 1, 10} {
			res, err := b.Titles(context.Background(), core.TitleRequest{Prompt: prompt, Count: count, Seed: 7})
			if err != nil {
				t.Fatalf("%q: %v", prompt, err)
			}
			want := count
			if count == 0 {
				want = DefaultCount
			}
			compacted, _ := Compact(prompt, MaxPrompt)
			key := Analyze(compacted).KeyPhrase
			checkTitles(t, prompt, res, want, key, vocab)
			if res.PromptCompacted != (utf8.RuneCountInString(prompt) > MaxPrompt) {
				t.Errorf("%q: PromptCompacted = %v", prompt, res.PromptCompacted)
			}
			for _, title := range res.Titles {
				total++
				if utf8.RuneCountInString(title) < 70 {
					short++
				}
			}
			if testing.Verbose() && count == 0 {
				t.Logf("%.60q\n  kind=%s key=%q\n  %s\n  %s", prompt, Analyze(compacted).Kind, key,
					strings.Join(res.Titles, "\n  "), res.Reasoning)
			}
		}
	}
	if short*10 < total*8 {
		t.Errorf("only %d of %d titles are under 70 characters", short, total)
	}
}

// FuzzBuiltin checks every rule on arbitrary prompts.
func FuzzBuiltin(f *testing.F) {
	for _, p := range []string{"!!!", "a", "how to", "2024", "vs", "x vs y vs z", "ŁÓDŹ", "A.B.C. D&E", "C++ vs Go", "'", "top 10 10 10"} {
		f.Add(p, uint64(1), 5)
	}
	vocab := templateVocabulary()
	for _, w := range wordsOf(placeholderKey) {
		vocab[w] = true
	}
	b := &Builtin{}
	f.Fuzz(func(t *testing.T, prompt string, seed uint64, count int) {
		if strings.TrimSpace(prompt) == "" || !utf8.ValidString(prompt) {
			return
		}
		count = clampCount(count % 30)
		res, err := b.Titles(context.Background(), core.TitleRequest{Prompt: prompt, Seed: seed, Count: count})
		if err != nil {
			t.Fatal(err)
		}
		compacted, _ := Compact(prompt, MaxPrompt)
		key := Analyze(compacted).KeyPhrase
		if key == "" {
			key = placeholderKey
		}
		checkTitles(t, compacted, res, count, key, vocab)
	})
}
