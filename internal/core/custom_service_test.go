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
