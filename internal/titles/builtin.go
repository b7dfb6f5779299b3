// Package titles generates video title suggestions: a builtin generator that needs no
// model, and an adapter for OpenAI-compatible chat APIs that falls back to it.
package titles

import (
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"thumbforge/internal/core"
)

// Title limits.
const (
	DefaultCount = 5   // titles returned when a request does not say
	MaxCount     = 20  // the most titles one request gets
	MaxTitleLen  = 100 // YouTube's title limit, in characters
)

// imageOnlyNote opens the reasoning of titles written without a prompt.
const imageOnlyNote = "Titles are based on the image only:"

// placeholderKey stands in for the key phrase of a prompt without words.
const placeholderKey = "This Video"

// Builtin writes titles from templates filled by an analysis of the prompt and image.
type Builtin struct {
	// Faces counts faces in image-only requests; nil leaves faces out.
	Faces core.FaceDetector
}

var _ core.Titler = (*Builtin)(nil)

// Titles returns req.Count distinct titles; the same request always gives the same answer.
func (b *Builtin) Titles(ctx context.Context, req core.TitleRequest) (core.TitleResult, error) {
	if err := ctxError(ctx); err != nil {
		return core.TitleResult{}, err
	}
	prompt, compacted := Compact(req.Prompt, MaxPrompt)
	if prompt == "" && req.Image == nil {
		return core.TitleResult{}, nothingToTitle()
	}
	count := clampCount(req.Count)
	var facts *imageFacts
	if req.Image != nil {
		f := measureImage(req.Image, b.Faces)
		facts = &f
	}
	rng := rand.New(rand.NewPCG(req.Seed, hashString(prompt)))
	var res core.TitleResult
	a := Analyze(prompt)
	switch {
	case a.KeyPhrase == "" && facts != nil:
		// No prompt, or one without a single word ("!!!"): the image is all there is.
		res = imageOnly(*facts, count, rng)
	case a.KeyPhrase == "":
		a.KeyPhrase = placeholderKey
		res = fromPrompt(a, nil, count, rng)
		res.Reasoning = "The prompt has no words to build on, so the titles are generic. " + res.Reasoning
	default:
		res = fromPrompt(a, facts, count, rng)
	}
	res.PromptCompacted = compacted
	if compacted {
		res.Reasoning += " The prompt was shortened to its most informative sentences first."
	}
	return res, nil
}

// ctxError maps a finished context to the title stage's public error.
func ctxError(ctx context.Context) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return core.Wrap(core.CodeTitleTimeout, err, "Title generation timed out.")
	default:
		return err
	}
}

func clampCount(n int) int {
	switch {
	case n <= 0:
		return DefaultCount
	case n > MaxCount:
		return MaxCount
	}
	return n
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// slots holds the values a template may ask for.
type slots map[string]string

// fill replaces a template's slots; ok is false when one of them has no value.
func (s slots) fill(tmpl string) (string, bool) {
	var sb strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return sb.String(), true
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", false
		}
		v := s[tmpl[i+1:i+j]]
		if v == "" {
			return "", false
		}
		sb.WriteString(tmpl[:i])
		sb.WriteString(v)
		tmpl = tmpl[i+j+1:]
	}
}

func fromPrompt(a Analysis, facts *imageFacts, count int, rng *rand.Rand) core.TitleResult {
	key := titleCase(a.KeyPhrase)
	s := slots{"K": key, "V": titleWord(a.Verb, true), "U": titleCase(a.ListUnit),
		"D": a.Days, "MN": a.Minutes}
	for _, n := range a.Numbers {
		// A number inside the key phrase ("iPhone 15") would be said twice.
		if !containsWord(key, n) {
			s["N"] = n
			break
		}
	}
	if a.ListUnit == "" {
		s["L"] = key
	}
	if len(a.Years) > 0 {
		s["Y"] = a.Years[0]
	}
	for _, e := range a.Entities {
		if !strings.Contains(strings.ToLower(key), strings.ToLower(e)) {
			s["E"] = titleCase(e)
			break
		}
	}
	var order []string
	if facts != nil {
		s["M"] = facts.Mood
		// The prompt leads; the image adds one mood title near the top.
		order = append(order, shuffled(moodTemplates, rng)[0])
	}
	order = append(order, shuffled(kindTemplates[a.Kind], rng)...)
	order = append(order, shuffled(genericTemplates, rng)...)
	if facts != nil && len(order) > 2 {
		order[0], order[1] = order[1], order[0]
	}
	titles := pick(order, s, count, key)

	var r strings.Builder
	about := ""
	if a.Topic != "" {
		about = " about " + a.Topic
	}
	if a.Kind == KindGeneric {
		r.WriteString("No specific video format was recognised in this video" + about + ", so general patterns were used")
	} else {
		r.WriteString("Recognised " + article(string(a.Kind)) + " " + string(a.Kind) + " video" + about)
	}
	r.WriteString(`; the titles are built around the key phrase "` + key + `"`)
	var extra []string
	for _, k := range []string{"E", "N", "Y"} {
		if v := s[k]; v != "" && usedSlot(titles, v, key) {
			extra = append(extra, v)
		}
	}
	if len(extra) > 0 {
		r.WriteString(" and use " + strings.Join(extra, ", "))
	}
	r.WriteString(".")
	if names := otherNames(a.Entities, key, extra); len(names) > 0 && len(extra) == 0 {
		r.WriteString(" Names recognised: " + strings.Join(names, ", ") + ".")
	}
	if facts != nil {
		r.WriteString(" The image adds mood words; it shows " + facts.describe() + ".")
	}
	return core.TitleResult{Titles: titles, Reasoning: r.String()}
}

func imageOnly(f imageFacts, count int, rng *rand.Rand) core.TitleResult {
	group := "scene"
	switch {
	case f.Faces == 1:
		group = "face"
	case f.Faces > 1:
		group = "faces"
	case f.text():
		group = "text"
	}
	colour := "Colour"
	if len(f.Colours) > 0 {
		colour = titleWord(f.Colours[0], true)
	}
	for _, c := range f.Colours {
		// A hue says more in a title than black, white or grey ("Dark Black").
		if c != "black" && c != "white" && c != "grey" {
			colour = titleWord(c, true)
			break
		}
	}
	s := slots{"M": f.Mood, "C": colour}
	order := shuffled(imageTemplates[group], rng)
	for _, g := range []string{"face", "faces", "scene", "text"} {
		if g != group && (g == "scene" || g == "text" || f.Faces > 0) {
			order = append(order, shuffled(imageTemplates[g], rng)...)
		}
	}
	titles := pick(order, s, count, "")
	return core.TitleResult{Titles: titles,
		Reasoning: imageOnlyNote + " " + f.describe() + "."}
}

func shuffled(list []string, rng *rand.Rand) []string {
	out := append([]string(nil), list...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// pick fills templates in order and keeps the first count that pass every check.
func pick(order []string, s slots, count int, key string) []string {
	var titles []string
	seen := map[string]bool{}
	for _, tmpl := range order {
		if len(titles) == count {
			break
		}
		t, ok := s.fill(tmpl)
		if !ok {
			continue
		}
		// Templates are written in title case and slot values are cased on their own, so
		// a key phrase keeps its casing ("A", "iPhone") wherever it lands.
		n := normalise(t)
		if seen[n] || !wellFormed(t, key) {
			continue
		}
		seen[n] = true
		titles = append(titles, t)
	}
	return titles
}

// wellFormed checks a finished title: length, no leftover slots or doubled spaces, no
// word repeated back to back, and the key phrase present.
func wellFormed(t, key string) bool {
	if t == "" || utf8.RuneCountInString(t) > MaxTitleLen || strings.ContainsAny(t, "{}") || strings.Contains(t, "%s") ||
		strings.Contains(t, "  ") {
		return false
	}
	if repeatsWord(t) {
		return false
	}
	return key == "" || strings.Contains(strings.ToLower(t), strings.ToLower(key))
}

// nothingToTitle is the validation error of a request with neither a usable prompt nor an
// image; like every validation error it names the field.
func nothingToTitle() error {
	return core.Invalid([]core.Detail{{Field: "prompt", Message: "send a prompt with words in it, a support image, or both"}})
}
