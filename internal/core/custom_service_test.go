package core

import (
	"strings"
	"testing"
)

func TestCheckCustomName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		strict bool
		ok     bool
	}{
		{"My Style", true, true},
		{"a", true, true},
		{"under_score-hyphen 9", true, true},
		{"Émile Zoë", true, true},
		{"tab\tseparated", true, true},
		{strings.Repeat("x", 25), true, true},
		{strings.Repeat("é", 25), true, true},
		{strings.Repeat("x", 26), true, false},
		{strings.Repeat("x", 26), false, false},
		{"", true, false},
		{"", false, false},
		{"   ", true, false},
		{"John's", true, false},
		{"John's", false, true},
		{"a.b", true, false},
		{"emoji 🙂", true, false},
		{"<script>", true, false},
		{"slash/name", true, false},
		{"nul\x00name", false, false},
		{"esc\x1bname", true, false},
		{"del\x7f", false, false},
	} {
		msg := CheckCustomName(tc.name, tc.strict)
		if (msg == "") != tc.ok {
			t.Errorf("CheckCustomName(%q, strict=%v) = %q, want ok=%v", tc.name, tc.strict, msg, tc.ok)
		}
	}
}

func TestIsReservedName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"default", true},
		{"Default", true},
		{" NONE ", true},
		{"admin", true},
		{"thumbforge", true},
		{"default style", false},
		{"my persona", false},
		{"administrator", false},
	} {
		if got := IsReservedName(tc.name); got != tc.want {
			t.Errorf("IsReservedName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzCheckCustomName checks the name rules' invariants on arbitrary input.
func FuzzCheckCustomName(f *testing.F) {
	for _, seed := range []string{"", "a", "My Style", "x\x00y", "日本語の名前", strings.Repeat("z", 30), "a-b_c d", "\u200b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		loose, strict := CheckCustomName(name, false), CheckCustomName(name, true)
		if strict == "" && loose != "" {
			t.Fatalf("%q passes the strict rules but not the loose ones", name)
		}
		if loose == "" {
			if n := len([]rune(name)); n < 1 || n > MaxNameLen || strings.TrimSpace(name) == "" {
				t.Fatalf("%q accepted with %d runes", name, n)
			}
		}
		if strict == "" && strings.ContainsAny(name, ";/\\.'\"<>") {
			t.Fatalf("%q accepted by the strict rules", name)
		}
	})
}
