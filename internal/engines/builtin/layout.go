package builtin

import (
	"image"

	"thumbforge/internal/core"
)

// layout is where things go on the canvas for one format and variant.
type layout struct {
	text    image.Rectangle // the headline must fit inside (safe margins included)
	align   int             // -1 left, 0 centre, 1 right
	maxSize int             // largest headline font size
	focus   image.Point     // the focal point opposite the headline: glow, face, card
	hero    int             // face height / card height in pixels
	card    image.Point     // card centre when a face also takes the focus
}

// makeLayout places the headline by format: 16:9 in the left or right part, 9:16 in a top
// or bottom band, 1:1 centred (or in the lower band when a subject takes the top).
// variant flips sides so candidates and seeds differ.
func makeLayout(f core.Format, w, h int, variant int, subject bool) layout {
	side := variant % 2
	switch f {
	case core.Format9x16:
		l := layout{align: 0, maxSize: w / 4, hero: h * 30 / 100}
		if side == 0 {
			l.text = image.Rect(w*7/100, h*6/100, w*93/100, h*34/100)
			l.focus = image.Pt(w/2, h*64/100)
			l.card = image.Pt(w/2, h*84/100)
		} else {
			l.text = image.Rect(w*7/100, h*64/100, w*93/100, h*92/100)
			l.focus = image.Pt(w/2, h*36/100)
			l.card = image.Pt(w/2, h*14/100)
		}
		return l
	case core.Format1x1:
		l := layout{align: 0, maxSize: w / 6, hero: h * 40 / 100}
		if !subject {
			l.text = image.Rect(w*10/100, h*28/100, w*90/100, h*72/100)
			l.focus = image.Pt(w/2, h/2)
			l.card = image.Pt(w*78/100, h*78/100)
			return l
		}
		l.text = image.Rect(w*8/100, h*62/100, w*92/100, h*93/100)
		l.focus = image.Pt(w*(35+30*side)/100, h*31/100)
		l.card = image.Pt(w*(72-44*side)/100, h*33/100)
		return l
	default:
		l := layout{maxSize: h / 4, hero: h * 42 / 100}
		if side == 0 {
			l.text = image.Rect(w*5/100, h*9/100, w*50/100, h*91/100)
			l.align = -1
			l.focus = image.Pt(w*76/100, h/2)
			l.card = image.Pt(w*62/100, h*72/100)
		} else {
			l.text = image.Rect(w*50/100, h*9/100, w*95/100, h*91/100)
			l.align = 1
			l.focus = image.Pt(w*24/100, h/2)
			l.card = image.Pt(w*38/100, h*72/100)
		}
		return l
	}
}
