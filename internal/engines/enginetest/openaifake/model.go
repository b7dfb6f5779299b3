package openaifake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What the real API enforces per model beyond the schema (the schema's descriptions of
// size, quality, input_fidelity and response_format in CreateImageRequest and
// CreateImageEditRequest).

// minPixels is gpt-image-2's pixel budget floor: 576x1024 is refused as "below the
// current minimum pixel budget" (ENGINES.md §1); the exact floor is not published, so the
// fake takes 1024x640.
const minPixels = 1024 * 640

var gptImageSizes = []string{"1024x1024", "1536x1024", "1024x1536", "auto"}

// family of a model name as the API treats it.
func family(model string) string {
	switch {
	case model == "":
		return "default"
	case strings.HasPrefix(model, "gpt-image-2"):
		return "gpt-image-2"
	case strings.HasPrefix(model, "gpt-image-1") || model == "chatgpt-image-latest":
		return "gpt-image-1"
	case model == "dall-e-3", model == "dall-e-2":
		return model
	}
	return ""
}

// checkModel applies the per-model rules to a generations (edit=false) or edits request
// and returns the picture size to answer.
func checkModel(f *form, edit bool) (w, h int, p *problem) {
	model := f.str("model")
	fam := family(model)
	if fam == "default" { // generations default to dall-e-2, edits to gpt-image-1.5
		fam = map[bool]string{false: "dall-e-2", true: "gpt-image-1"}[edit]
	}
	if fam == "" {
		return 0, 0, invalid("model", "invalid_value", "Invalid value: '%s'. Supported values are: 'gpt-image-1', 'gpt-image-1-mini', 'gpt-image-1.5', 'gpt-image-2', 'dall-e-2' and 'dall-e-3'.", model)
	}
	if edit && fam == "dall-e-3" {
		return 0, 0, invalid("model", "invalid_value", "Image editing is not supported for dall-e-3.")
	}
	size := f.str("size")
	switch fam {
	case "gpt-image-1":
		if size != "" && !slices.Contains(gptImageSizes, size) {
			return 0, 0, invalid("size", "invalid_value", "Invalid value: '%s'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.", size)
		}
	case "dall-e-3":
		if size != "" && !slices.Contains([]string{"1024x1024", "1792x1024", "1024x1792"}, size) {
			return 0, 0, invalid("size", "invalid_value", "Invalid value: '%s'. Supported values are: '1024x1024', '1024x1792', and '1792x1024'.", size)
		}
	case "dall-e-2":
		if size != "" && !slices.Contains([]string{"256x256", "512x512", "1024x1024"}, size) {
			return 0, 0, invalid("size", "invalid_value", "Invalid value: '%s'. Supported values are: '256x256', '512x512', and '1024x1024'.", size)
		}
	case "gpt-image-2":
		if p := checkFreeSize(size); p != nil {
			return 0, 0, p
		}
	}
	if p := checkQuality(fam, f.str("quality")); p != nil {
		return 0, 0, p
	}
	if f.str("input_fidelity") != "" && (strings.Contains(model, "mini") || strings.HasPrefix(fam, "dall-e")) {
		return 0, 0, invalid("input_fidelity", "invalid_value", "input_fidelity is not supported for %s.", model)
	}
	if f.str("response_format") != "" && !strings.HasPrefix(fam, "dall-e") {
		return 0, 0, invalid("response_format", "unknown_parameter", "Unknown parameter: 'response_format'.")
	}
	if size == "" || size == "auto" {
		return 1024, 1024, nil
	}
	w, h, _ = parseSize(size)
	return w, h, nil
}

// checkFreeSize applies gpt-image-2's rules for WIDTHxHEIGHT sizes.
func checkFreeSize(size string) *problem {
	if size == "" || size == "auto" {
		return nil
	}
	w, h, ok := parseSize(size)
	switch {
	case !ok:
		return invalid("size", "invalid_value", "Invalid value: '%s'. Size must be 'auto' or WIDTHxHEIGHT.", size)
	case w%16 != 0 || h%16 != 0:
		return invalid("size", "invalid_value", "Invalid size '%s'. Width and height must both be divisible by 16.", size)
	case w > 3*h || h > 3*w:
		return invalid("size", "invalid_value", "Invalid size '%s'. The aspect ratio must be between 1:3 and 3:1.", size)
	case max(w, h) > 3840 || w*h > 3840*2160:
		return invalid("size", "invalid_value", "Invalid size '%s'. The longest edge must be less than or equal to 3840 pixels.", size)
	case w*h < minPixels:
		return invalid("size", "invalid_value", "Invalid size '%s'. The requested size is below the current minimum pixel budget.", size)
	}
	return nil
}

func checkQuality(fam, q string) *problem {
	if q == "" || q == "auto" {
		return nil
	}
	allowed := map[string][]string{
		"gpt-image-1": {"low", "medium", "high"}, "gpt-image-2": {"low", "medium", "high"},
		"dall-e-3": {"standard", "hd"}, "dall-e-2": {"standard"},
	}[fam]
	if !slices.Contains(allowed, q) {
		return invalid("quality", "invalid_value", "Invalid value: '%s'. Supported values are: %s.", q, quoteList(allowed))
	}
	return nil
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, ", ")
}

// parseSize reads WIDTHxHEIGHT.
func parseSize(s string) (w, h int, ok bool) {
	a, b, found := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return w, h, true
}

// sizeLabel formats a size as the answer's "size" field.
func sizeLabel(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }
