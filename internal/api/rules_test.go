package api

import (
	"strings"
	"testing"
	"thumbforge/internal/inputs"

	"thumbforge/internal/core"
)

// promptEndpoints builds, for each endpoint that takes a prompt, a valid body around it.
var promptEndpoints = map[string]func(prompt string) (core.Code, map[string]bool){}

func init() {
	wrap := func(decode func(*body) error, base ...any) func(string) (core.Code, map[string]bool) {
		return func(prompt string) (core.Code, map[string]bool) {
			b, err := parseBody([]byte(obj(append(append([]any{}, base...), "prompt", prompt)...)))
			if err == nil {
				err = decode(b)
			}
			e := core.AsError(err)
			if e == nil {
				return "", nil
			}
			fields := map[string]bool{}
			for _, d := range e.Details {
				fields[d.Field] = true
			}
			return e.Code, fields
		}
	}
	ignore := func(f func(*body) (core.ThumbnailParams, error)) func(*body) error {
		return func(b *body) error { _, err := f(b); return err }
	}
	promptEndpoints["v2 thumbnail/image"] = wrap(ignore(decodeThumbnailImage), "model", "mdl_4", "format", "16:9", "image_url", okURL)
	promptEndpoints["v2 thumbnail/text"] = wrap(ignore(decodeThumbnailText), "model", "mdl_4", "format", "16:9")
	promptEndpoints["v2 thumbnail/edit"] = wrap(func(b *body) error { _, err := decodeEdit(b); return err }, "image_url", okURL)
	promptEndpoints["v2 title/text"] = wrap(func(b *body) error { _, err := decodeTitle(b); return err })
	promptEndpoints["v1 thumbnail"] = wrap(ignore(decodeV1Thumbnail))
	promptEndpoints["v1 recreate"] = wrap(ignore(decodeV1Recreate), "model", "mdl-3", "image_url", okURL)
	promptEndpoints["v1 edit"] = wrap(func(b *body) error { _, err := decodeV1Edit(b); return err }, "image_url", okURL)
	promptEndpoints["v1 title"] = wrap(func(b *body) error { _, err := decodeV1Title(b); return err }, "model", "mdl-3")
}

// TestOnePromptRule: every endpoint refuses the same prompts, naming the field.
func TestOnePromptRule(t *testing.T) {
	cases := []struct {
		name, prompt string
		ok           bool
	}{
		{"plain", "How to bake bread", true},
		{"newlines and tabs", "Line one\nline two\r\n\tindented", true},
		{"accents and emoji", "Crème brûlée 🔥", true},
		{"empty", "", false},
		{"spaces only", "   ", false},
		{"whitespace only", " \n\t\r\u00a0\u2003", false},
		{"NUL only", "\u0000", false},
		{"NUL inside", "bake\u0000bread", false},
		{"escape", "bake \u001b[31mbread", false},
		{"DEL", "bake\u007fbread", false},
		{"C1 control", "bake\u0085bread", false},
		{"too long", strings.Repeat("a", 3001), false},
	}
	for ep, run := range promptEndpoints {
		for _, c := range cases {
			code, fields := run(c.prompt)
			switch {
			case c.ok && code != "":
				t.Errorf("%s: %s refused: %s %v", ep, c.name, code, fields)
			case !c.ok && (code != core.CodeValidation || !fields["prompt"]):
				t.Errorf("%s: %s: got %q %v, want VALIDATION_ERROR naming prompt", ep, c.name, code, fields)
			}
		}
	}
}

// TestInstructionsRule: special instructions follow the prompt rules (links included),
// with their own length.
func TestInstructionsRule(t *testing.T) {
	cases := []struct {
		name, text string
		ok         bool
	}{
		{"plain", "warm tones, smiling", true},
		{"empty clears", "", true},
		{"300", strings.Repeat("a", 300), true},
		{"301", strings.Repeat("a", 301), false},
		{"link", "see https://example.com", false},
		{"HTTP in any case", "hTtP stuff", false},
		{"control", "warm\u0000", false},
		{"spaces only", "   ", false},
	}
	for _, c := range cases {
		b, err := parseBody([]byte(obj("special_instructions", c.text)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = decodeInstructions(b)
		e := core.AsError(err)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s refused: %v", c.name, err)
		case !c.ok && (e == nil || e.Code != core.CodeValidation || len(e.Details) == 0 || e.Details[0].Field != "special_instructions"):
			t.Errorf("%s: got %v, want VALIDATION_ERROR naming special_instructions", c.name, err)
		}
	}
}

// TestDataURLRulesAgree: the validator accepts exactly the data URLs the parser reads.
// "data:", the media type and ";base64" are case-insensitive (RFC 2397, RFC 2045).
func TestDataURLRulesAgree(t *testing.T) {
	const png1 = "iVBORw0KGgo="
	for _, s := range []string{
		"data:image/png;base64," + png1,
		"DATA:image/png;base64," + png1,
		"Data:Image/PNG;BASE64," + png1,
		"data:image/svg+xml;base64," + png1,
		"data:image/png;base64,",
		"data:image/;base64," + png1,
		"data:text/plain;base64," + png1,
		"data:image/png," + png1,
		"data:image/png;charset=utf-8;base64," + png1,
		"data:image/png;base64,@@@@",
		"data:image/png;base64,A",
		"image/png;base64," + png1,
	} {
		_, _, perr := inputs.ParseDataURL(s)
		if ok := checkDataURL(s) == ""; ok != (perr == nil) {
			t.Errorf("%q: validator ok=%v, parser err=%v", s, ok, perr)
		}
	}
}
