package builtin

import (
	"image/color"
	"strings"
)

// colourNames are the colour words background edits understand; an ordered slice so
// "light blue" is tried before "blue".
var colourNames = []struct {
	name string
	c    color.RGBA
}{
	{"light blue", hexRGB(0x8ecbff)}, {"sky blue", hexRGB(0x87ceeb)}, {"navy", hexRGB(0x0b1f4d)},
	{"dark blue", hexRGB(0x10246b)}, {"light green", hexRGB(0x90ee90)}, {"dark green", hexRGB(0x0b4d1f)},
	{"dark red", hexRGB(0x7a0b0b)}, {"light gray", hexRGB(0xd3d3d3)}, {"light grey", hexRGB(0xd3d3d3)},
	{"dark gray", hexRGB(0x333333)}, {"dark grey", hexRGB(0x333333)},
	{"red", hexRGB(0xe02424)}, {"green", hexRGB(0x22a843)}, {"blue", hexRGB(0x1f5fe0)},
	{"yellow", hexRGB(0xffd21f)}, {"orange", hexRGB(0xff7a1a)}, {"purple", hexRGB(0x7b2fd0)},
	{"violet", hexRGB(0x8f4fe0)}, {"pink", hexRGB(0xff5fa8)}, {"magenta", hexRGB(0xe020c0)},
	{"cyan", hexRGB(0x1fd8e8)}, {"teal", hexRGB(0x138f8a)}, {"turquoise", hexRGB(0x30d5c8)},
	{"white", hexRGB(0xffffff)}, {"black", hexRGB(0x000000)}, {"gray", hexRGB(0x808080)},
	{"grey", hexRGB(0x808080)}, {"brown", hexRGB(0x7a4a22)}, {"beige", hexRGB(0xe8d8b8)},
	{"gold", hexRGB(0xf2c230)}, {"silver", hexRGB(0xc0c0c8)}, {"lime", hexRGB(0x9be22d)},
}

// findColour returns the first colour named in s.
func findColour(s string) (color.RGBA, bool) {
	for _, n := range colourNames {
		if strings.Contains(s, n.name) {
			return n.c, true
		}
	}
	return color.RGBA{}, false
}
