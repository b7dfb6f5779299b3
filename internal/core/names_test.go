package core

import "testing"

func TestReservedLookAlikes(t *testing.T) {
	for _, name := range []string{
		"admin", "ADMIN", " admin ", "ａｄｍｉｎ", "Admın", "ADMİN", "Аdmin" /* Cyrillic А */, "adrnin",
		"ádmin", "ad\u200bmin" /* zero-width space */, "Ｓｙｓｔｅｍ", "def ault",
	} {
		if name == "def ault" {
			if IsReservedName(name) {
				t.Errorf("%q: a space makes another name", name)
			}
			continue
		}
		if !IsReservedName(name) {
			t.Errorf("%q is not reserved", name)
		}
	}
	for _, name := range []string{"administrator", "Bob", "my style", "nul", "Café"} {
		if IsReservedName(name) {
			t.Errorf("%q is reserved", name)
		}
	}
}

func TestNameKeyLookAlikes(t *testing.T) {
	same := [][2]string{
		{"Bob", "bob"},
		{"Bob", "ＢＯＢ"},
		{"Paypal", "Рaypal"}, // Cyrillic Р
		{"team  one", "Team one"},
		{"Straße", "STRASSE"},
		{"rn studio", "m studio"},
		{"Zoë", "Zoe\u0308"}, // composed and decomposed
	}
	for _, p := range same {
		if NameKey(p[0]) != NameKey(p[1]) {
			t.Errorf("%q and %q have keys %q and %q", p[0], p[1], NameKey(p[0]), NameKey(p[1]))
		}
	}
	differ := [][2]string{{"Bob", "Rob"}, {"Zoë", "Zoe"}, {"team one", "teamone"}, {"कला", "केला"}}
	for _, p := range differ {
		if NameKey(p[0]) == NameKey(p[1]) {
			t.Errorf("%q and %q share the key %q", p[0], p[1], NameKey(p[0]))
		}
	}
}
