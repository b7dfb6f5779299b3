package titles

import (
	"context"
	"slices"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		prompt   string
		kind     Kind
		key      string
		numbers  []string
		years    []string
		entities []string // each must be found
	}{
		{"How to make sourdough bread at home", KindHowTo, "sourdough bread", nil, nil, nil},
		{"Top 10 budget laptops of 2024", KindList, "budget laptops", []string{"10"}, []string{"2024"}, nil},
		{"iPhone 15 vs Samsung Galaxy S24 camera comparison", KindComparison, "iPhone 15 vs Samsung Galaxy S24", []string{"15"}, nil, []string{"Samsung Galaxy S24"}},
		{"PS5 versus Xbox Series X", KindComparison, "PS5 vs Xbox Series X", nil, nil, []string{"Xbox Series X"}},
		{"Sony WH-1000XM5 honest review", KindReview, "Sony WH-1000XM5", nil, nil, nil},
		{"I tried the 75 Hard challenge for 30 days", KindChallenge, "75 Hard", []string{"75", "30"}, nil, nil},
		{"Unboxing the new Nintendo Switch 2", KindUnboxing, "Nintendo Switch 2", []string{"2"}, nil, []string{"Nintendo Switch"}},
		{"First time hearing Bohemian Rhapsody by Queen reaction", KindReaction, "Bohemian Rhapsody", nil, nil, []string{"Queen"}},
		{"Breaking news: Apple announced a foldable iPhone at WWDC", KindNews, "foldable iPhone", nil, nil, []string{"WWDC"}},
		{"Python tutorial for complete beginners", KindTutorial, "Python", nil, nil, nil},
		{"Why the Roman Empire really fell", KindExplainer, "Roman Empire", nil, nil, []string{"Roman Empire"}},
		{"Easy chicken curry recipe for dinner", KindRecipe, "chicken curry", nil, nil, nil},
		{"Tokyo travel vlog: 5 days exploring Shibuya", KindVlog, "Tokyo", []string{"5"}, nil, []string{"Shibuya"}},
		{"Elden Ring boss fight gameplay", KindGameplay, "Elden Ring boss", nil, nil, nil},
		{"The story of how I quit my job and moved to Lisbon", KindStory, "Lisbon", nil, nil, []string{"Lisbon"}},
		{"Minecraft", KindGeneric, "Minecraft", nil, nil, []string{"Minecraft"}},
		{"how to", KindHowTo, "how", nil, nil, nil},
		{"2024", KindGeneric, "2024", nil, []string{"2024"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			a := Analyze(tt.prompt)
			if a.Kind != tt.kind {
				t.Errorf("kind %s, want %s", a.Kind, tt.kind)
			}
			if !strings.EqualFold(a.KeyPhrase, tt.key) {
				t.Errorf("key %q, want %q", a.KeyPhrase, tt.key)
			}
			if tt.numbers != nil && !slices.Equal(a.Numbers, tt.numbers) {
				t.Errorf("numbers %q, want %q", a.Numbers, tt.numbers)
			}
			if tt.years != nil && !slices.Equal(a.Years, tt.years) {
				t.Errorf("years %q, want %q", a.Years, tt.years)
			}
			for _, e := range tt.entities {
				if !slices.Contains(a.Entities, e) {
					t.Errorf("entities %q lack %q", a.Entities, e)
				}
			}
		})
	}
}

func TestTitleCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how to make sourdough bread at home", "How to Make Sourdough Bread at Home"},
		{"iphone 15 vs galaxy s24", "iPhone 15 vs Galaxy S24"},
		{"the best gpu for the money", "The Best GPU for the Money"},
		{"NASA and the moon", "NASA and the Moon"},
		{"swiss alps – a true story", "Swiss Alps – A True Story"},
		{"step-by-step guide: a start", "Step-by-Step Guide: A Start"},
		{"what is it for", "What Is It For"},
		{"łódź at night", "Łódź at Night"},
		{"mrbeast and youtube", "MrBeast and YouTube"},
	}
	for _, tt := range tests {
		if got := titleCase(tt.in); got != tt.want {
			t.Errorf("titleCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncateWords(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"one two three", 9, "one two"},
		{"one two three", 7, "one two"},
		{"one two, three", 9, "one two"},
		{"unbreakable", 5, ""},
	}
	for _, tt := range tests {
		if got := truncateWords(tt.in, tt.max); got != tt.want {
			t.Errorf("truncateWords(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestDeterministicAndSeeded(t *testing.T) {
	b := &Builtin{}
	ctx := context.Background()
	differ := 0
	for _, p := range loadCorpus(t)[:20] {
		r1, err1 := b.Titles(ctx, core.TitleRequest{Prompt: p, Seed: 1})
		r2, err2 := b.Titles(ctx, core.TitleRequest{Prompt: p, Seed: 1})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if strings.Join(r1.Titles, "|") != strings.Join(r2.Titles, "|") || r1.Reasoning != r2.Reasoning {
			t.Fatalf("%q: same request, different answers", p)
		}
		r3, _ := b.Titles(ctx, core.TitleRequest{Prompt: p, Seed: 2})
		if strings.Join(r1.Titles, "|") != strings.Join(r3.Titles, "|") {
			differ++
		}
	}
	if differ < 15 {
		t.Fatalf("only %d of 20 prompts change with the seed", differ)
	}
}

func TestBuiltinErrors(t *testing.T) {
	b := &Builtin{}
	for _, titler := range []core.Titler{b, &LLM{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}} {
		_, err := titler.Titles(context.Background(), core.TitleRequest{Prompt: "   "})
		// Like every validation error, it names the field.
		if e := core.AsError(err); e == nil || e.Code != core.CodeValidation || len(e.Details) != 1 || e.Details[0].Field != "prompt" {
			t.Fatalf("%T: empty request: %v", titler, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	if _, err := b.Titles(ctx, core.TitleRequest{Prompt: "bread"}); core.CodeOf(err) != core.CodeTitleTimeout {
		t.Fatalf("expired context: %v", err)
	}
}

func TestReasoningNamesKindAndKey(t *testing.T) {
	res, err := (&Builtin{}).Titles(context.Background(), core.TitleRequest{Prompt: "Top 10 budget laptops of 2024"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"list video", `"Budget Laptops"`} {
		if !strings.Contains(res.Reasoning, want) {
			t.Errorf("reasoning %q lacks %q", res.Reasoning, want)
		}
	}
}

func TestCountLimits(t *testing.T) {
	b := &Builtin{}
	res, err := b.Titles(context.Background(), core.TitleRequest{Prompt: "sourdough", Count: 500})
	if err != nil || len(res.Titles) != MaxCount {
		t.Fatalf("count 500: %d titles, %v", len(res.Titles), err)
	}
	checkTitles(t, "sourdough", res, MaxCount, "sourdough", templateVocabulary())
}
