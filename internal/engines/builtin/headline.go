package builtin

import (
	"image"
	"strings"

	"golang.org/x/image/math/fixed"
)

// textLine is one placed headline line: its text, dot position and ink bounds.
type textLine struct {
	text      string
	x, base   int
	ink       image.Rectangle
	highlight bool
}

// textLayout is a headline fitted into a box.
type textLayout struct {
	lines    []textLine
	size     int
	fallback bool
	ink      image.Rectangle // union of the lines' ink
}

const refSize = 100

// minFontSize is the smallest headline size tried at full resolution.
const minFontSize = 12

// layoutHeadline wraps words into lines and picks the largest font size (at most maxSize,
// at least minSize)
// whose ink fits inside box; align is -1 left, 0 centre, 1 right. Every split of the
// words into consecutive lines is tried (at most 16 for 5 words) because the best
// wrapping for a tall box differs from a wide one.
func (fs *fontSet) layoutHeadline(words []string, box image.Rectangle, align, maxSize, minSize int) (textLayout, bool) {
	if len(words) == 0 || box.Empty() {
		return textLayout{}, false
	}
	fb := fs.needsFallback(strings.Join(words, " "))
	capB, _ := fs.measure(fb, refSize, "H")
	capH := float64((capB.Max.Y - capB.Min.Y).Ceil())
	gap := capH * 0.2
	wordW := make([]float64, len(words))
	for i, w := range words {
		_, adv := fs.measure(fb, refSize, w)
		wordW[i] = float64(adv.Ceil())
	}
	_, spAdv := fs.measure(fb, refSize, " ")
	space := float64(spAdv.Ceil())

	n := len(words)
	bestSize, bestSplit := 0.0, 0
	for split := 0; split < 1<<(n-1); split++ {
		lines := 1
		maxW, cur := 0.0, wordW[0]
		for i := 1; i < n; i++ {
			if split&(1<<(i-1)) != 0 {
				maxW = max(maxW, cur)
				cur = wordW[i]
				lines++
			} else {
				cur += space + wordW[i]
			}
		}
		maxW = max(maxW, cur)
		h := capH*float64(lines) + gap*float64(lines-1)
		s := refSize * min(float64(box.Dx())/maxW, float64(box.Dy())/h)
		if s > bestSize {
			bestSize, bestSplit = s, split
		}
	}
	var lineTexts []string
	cur := []string{words[0]}
	for i := 1; i < n; i++ {
		if bestSplit&(1<<(i-1)) != 0 {
			lineTexts = append(lineTexts, strings.Join(cur, " "))
			cur = nil
		}
		cur = append(cur, words[i])
	}
	lineTexts = append(lineTexts, strings.Join(cur, " "))

	size := min(int(bestSize)&^1, maxSize)
	for ; size >= max(minSize, 1); size -= 2 + size/20 {
		l := fs.place(lineTexts, fb, size, box, align)
		if l.ink.In(box) {
			return l, true
		}
	}
	return textLayout{}, false
}

// place stacks the lines at size, centred vertically in box and aligned horizontally.
func (fs *fontSet) place(lineTexts []string, fb bool, size int, box image.Rectangle, align int) textLayout {
	capB, _ := fs.measure(fb, size, "H")
	capH := (capB.Max.Y - capB.Min.Y).Ceil()
	gap := capH / 5
	total := capH*len(lineTexts) + gap*(len(lineTexts)-1)
	top := box.Min.Y + (box.Dy()-total)/2 + 1
	l := textLayout{size: size, fallback: fb}
	for i, s := range lineTexts {
		b, _ := fs.measure(fb, size, s)
		base := top + capH*(i+1) + gap*i
		inkW := b.Max.X.Ceil() - b.Min.X.Floor()
		var x int
		switch align {
		case -1:
			x = box.Min.X - b.Min.X.Floor()
		case 1:
			x = box.Max.X - b.Max.X.Ceil()
		default:
			x = box.Min.X + (box.Dx()-inkW)/2 - b.Min.X.Floor()
		}
		ink := inkRect(b, x, base)
		l.lines = append(l.lines, textLine{text: s, x: x, base: base, ink: ink, highlight: len(lineTexts) > 1 && i == len(lineTexts)-1})
		l.ink = l.ink.Union(ink)
	}
	return l
}

func inkRect(b fixed.Rectangle26_6, x, base int) image.Rectangle {
	return image.Rect(x+b.Min.X.Floor(), base+b.Min.Y.Floor(), x+b.Max.X.Ceil(), base+b.Max.Y.Ceil())
}
