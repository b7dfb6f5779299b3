package builtin

import (
	"image/color"
	"regexp"
	"strings"

	"thumbforge/internal/core"
)

// OpKind names one edit operation.
type OpKind string

// The edit operations the instruction parser recognises.
const (
	OpBrightness      OpKind = "brightness"       // Amount > 0 brighter, < 0 darker
	OpContrast        OpKind = "contrast"         // Amount > 0 more, < 0 less
	OpSaturation      OpKind = "saturation"       // Amount > 0 more, < 0 less
	OpGrayscale       OpKind = "grayscale"        // black and white
	OpTemperature     OpKind = "temperature"      // Amount > 0 warmer, < 0 cooler
	OpBlurBackground  OpKind = "blur_background"  // keep the subject sharp
	OpBackgroundColor OpKind = "background_color" // Color is the new background colour
	OpAddText         OpKind = "add_text"         // Text is drawn as a headline
	OpZoom            OpKind = "zoom"             // Amount is the zoom factor (> 1)
	OpVignette        OpKind = "vignette"         // darken the corners
	OpSharpen         OpKind = "sharpen"          // unsharp mask
)

// Op is one parsed edit.
type Op struct {
	Kind   OpKind
	Amount float64
	Color  color.RGBA
	Text   string
}

// SupportedEdits lists the edits instructions can ask for, for documentation and errors.
var SupportedEdits = []string{"brighter", "darker", "contrast", "saturation", "black and white", "warmer",
	"cooler", "blur background", "background colour", `add text "..."`, "zoom", "crop", "vignette", "sharpen"}

// errNotUnderstood is returned when no part of an instruction names a supported edit.
func errNotUnderstood() error {
	return core.E(core.CodeGenerationRejected, "The edit instruction was not understood. Supported edits: brighter, darker, contrast, saturation, black and white, warmer, cooler, blur background, background colour, add text \"...\", zoom, crop, vignette, sharpen.")
}

var (
	quoted      = regexp.MustCompile(`["“”]([^"“”]*)["“”]`)
	clauseSplit = regexp.MustCompile(`\s*(?:,|;|\.|!|\band\b|\bthen\b|\bplus\b|\balso\b)\s*`)
)

// ParseInstruction turns a free-text edit instruction into operations, in the order
// they are asked for. Several edits combine ("make it brighter, add text \"NEW\" and add a
// vignette"); parts that name nothing are ignored, but an instruction where nothing
// matches is a GENERATION_REJECTED error.
func ParseInstruction(s string) ([]Op, error) {
	var texts []string
	s = quoted.ReplaceAllStringFunc(s, func(m string) string {
		texts = append(texts, strings.TrimSpace(quoted.FindStringSubmatch(m)[1]))
		return " \x00 "
	})
	s = strings.ToLower(s)
	// "black and white" must survive the split on "and".
	for _, bw := range []string{"black and white", "black & white", "b&w"} {
		s = strings.ReplaceAll(s, bw, "grayscale")
	}
	var ops []Op
	for _, clause := range clauseSplit.Split(s, -1) {
		if op, ok := parseClause(clause, &texts); ok {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return nil, errNotUnderstood()
	}
	return ops, nil
}

// modifier reads "much"/"slightly" style intensity words.
func modifier(c string) float64 {
	switch {
	case hasAny(c, "much", "a lot", "way ", "very", "significantly", "really", "extremely", "super"):
		return 2
	case hasAny(c, "slightly", "a bit", "a little", "a touch", "subtle", "somewhat", "little"):
		return 0.5
	}
	return 1
}

func hasAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func parseClause(c string, texts *[]string) (Op, bool) {
	m := modifier(c)
	switch {
	case strings.Contains(c, "\x00") && len(*texts) > 0:
		t := (*texts)[0]
		*texts = (*texts)[1:]
		if t == "" {
			return Op{}, false
		}
		return Op{Kind: OpAddText, Text: t}, true
	case hasAny(c, "grayscale", "greyscale", "monochrome", "gray scale", "grey scale", "noir"):
		return Op{Kind: OpGrayscale}, true
	case strings.Contains(c, "blur") || strings.Contains(c, "bokeh"):
		return Op{Kind: OpBlurBackground, Amount: m}, true
	case strings.Contains(c, "background"):
		if col, ok := findColour(c); ok {
			return Op{Kind: OpBackgroundColor, Color: col}, true
		}
	case strings.Contains(c, "vignette"):
		return Op{Kind: OpVignette, Amount: m}, true
	case hasAny(c, "sharpen", "sharper", "crisper", "crisp", "more detail"):
		return Op{Kind: OpSharpen, Amount: m}, true
	case strings.Contains(c, "contrast"):
		if hasAny(c, "less", "lower", "reduce", "decrease", "softer", "lower") {
			return Op{Kind: OpContrast, Amount: -m}, true
		}
		return Op{Kind: OpContrast, Amount: m}, true
	case hasAny(c, "desaturat", "less saturat", "less colo", "muted", "washed out", "less vivid", "less vibrant"):
		return Op{Kind: OpSaturation, Amount: -m}, true
	case hasAny(c, "saturat", "colorful", "colourful", "vibrant", "vivid", "more colo", "pop"):
		return Op{Kind: OpSaturation, Amount: m}, true
	case hasAny(c, "darker", "darken", "dimmer", "dim ", "less bright", "moodier"):
		return Op{Kind: OpBrightness, Amount: -m}, true
	case hasAny(c, "brighter", "brighten", "lighter", "lighten", "more light", "brightness", "bright"):
		return Op{Kind: OpBrightness, Amount: m}, true
	case hasAny(c, "warmer", "warm"):
		return Op{Kind: OpTemperature, Amount: m}, true
	case hasAny(c, "cooler", "colder", "cool", "cold"):
		return Op{Kind: OpTemperature, Amount: -m}, true
	case hasAny(c, "zoom", "crop", "closer", "tighter"):
		return Op{Kind: OpZoom, Amount: 1 + 0.3*m}, true
	}
	return Op{}, false
}
