package console_test

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// luminance is the WCAG relative luminance of a #rrggbb colour.
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil || len(hex) != 7 {
		t.Fatalf("colour %q", hex)
	}
	lin := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
}

// TestColourContrast checks the palette of console.css against WCAG 2.2 AA: 4.5:1 for text
// on each background it is used on, 3:1 for the focus ring against the page.
func TestColourContrast(t *testing.T) {
	css, err := os.ReadFile("static/console.css")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-fA-F]{6})`).FindAllStringSubmatch(string(css), -1) {
		vars[m[1]] = m[2]
	}
	colour := func(name string) string {
		if name[0] == '#' {
			return name
		}
		c, ok := vars[name]
		if !ok {
			t.Fatalf("console.css has no --%s", name)
		}
		return c
	}
	for _, c := range []struct {
		fg, bg string
		min    float64
	}{
		{"text", "bg", 4.5}, {"text", "surface", 4.5}, {"muted", "surface", 4.5}, {"muted", "bg", 4.5},
		{"muted", "#fafbfd", 4.5}, // pickers and account cards
		{"accent", "surface", 4.5}, {"#ffffff", "accent", 4.5}, {"accent-hover", "accent-soft", 4.5},
		{"danger", "surface", 4.5}, {"danger", "danger-soft", 4.5}, {"ok", "ok-soft", 4.5}, {"warn", "warn-soft", 4.5},
		{"top-text", "top", 4.5}, {"top-muted", "top", 4.5}, {"#384152", "#eef0f5", 4.5}, // default badge
		{"focus", "bg", 3}, {"focus", "surface", 3},
	} {
		l1, l2 := luminance(t, colour(c.fg)), luminance(t, colour(c.bg))
		ratio := (math.Max(l1, l2) + 0.05) / (math.Min(l1, l2) + 0.05)
		if ratio < c.min {
			t.Errorf("%s on %s: contrast %.2f, want at least %.1f", c.fg, c.bg, ratio, c.min)
		}
	}
}
