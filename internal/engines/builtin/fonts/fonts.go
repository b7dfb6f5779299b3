// Package fonts bundles the display fonts the builtin engine draws headlines with.
//
// BebasNeue-Bold.otf comes from Debian's fonts-bebas-neue package (SIL Open Font
// License 1.1, see OFL-BebasNeue.txt). Go Bold (BSD) from golang.org/x/image/font/gofont
// is the fallback for characters Bebas Neue lacks.
package fonts

import (
	_ "embed"

	"golang.org/x/image/font/gofont/gobold"
)

//go:embed BebasNeue-Bold.otf
var bebasNeueBold []byte

// Display returns the OpenType bytes of the headline display font.
func Display() []byte { return bebasNeueBold }

// Fallback returns the TrueType bytes of the font used when Display lacks a glyph.
func Fallback() []byte { return gobold.TTF }
