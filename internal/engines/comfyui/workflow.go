package comfyui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Purpose is what a workflow is for; the file of an operator's workflow is Purpose + ".json".
type Purpose string

// Workflow kinds.
const (
	ForText     Purpose = "text"     // thumbnail from text
	ForImage    Purpose = "image"    // thumbnail from a reference image (denoise from image_weight)
	ForEdit     Purpose = "edit"     // edit by instruction, with a mask (white = edit)
	ForPersona  Purpose = "persona"  // thumbnail showing a persona's face
	ForStyle    Purpose = "style"    // thumbnail in a style learnt from reference images
	ForFaceSwap Purpose = "faceswap" // a face put onto the person of a target image
)

// Purposes lists every workflow kind, in the order files are read.
var Purposes = []Purpose{ForText, ForImage, ForEdit, ForPersona, ForStyle, ForFaceSwap}

// placeholder kinds: how a value is written into the graph.
const (
	phString = iota // a JSON string
	phInt           // a JSON integer
	phFloat         // a JSON number
	phImage         // a JSON string: the name ComfyUI gave the uploaded image
)

// Placeholders are the names a workflow may bind, each standing as a whole JSON string
// value ("{{seed}}"), with how its value is written.
var placeholders = map[string]int{
	"prompt": phString, "negative_prompt": phString, "checkpoint": phString,
	"seed": phInt, "width": phInt, "height": phInt, "steps": phInt, "denoise": phFloat,
	"image": phImage, "mask": phImage, "support": phImage, "face": phImage, "style": phImage,
}

// rules say which placeholders a kind must use and which pictures it can never be given.
// The others are optional: {{support}} in text and image workflows (one that uses it
// serves only requests with a support image, the embedded default the rest); {{image}}
// in persona and style workflows (without a reference it is a grey canvas and
// {{denoise}} is 1, which makes an img2img graph a txt2img one); {{mask}} in edit and
// faceswap workflows (all white without one).
var rules = map[Purpose]struct{ must, never []string }{
	ForText:     {must: []string{"prompt"}, never: []string{"image", "mask", "face", "style"}},
	ForImage:    {must: []string{"image"}, never: []string{"mask", "face", "style"}},
	ForEdit:     {must: []string{"image", "prompt"}, never: []string{"support", "face", "style"}},
	ForPersona:  {must: []string{"face"}, never: []string{"mask", "support", "style"}},
	ForStyle:    {must: []string{"style"}, never: []string{"mask", "support", "face"}},
	ForFaceSwap: {must: []string{"image", "face"}, never: []string{"support", "style"}},
}

// Workflow is an API-format ComfyUI graph ("Export (API)") whose inputs name
// thumbforge's values by placeholders.
type Workflow struct {
	Purpose Purpose
	Source  string // file name, or "embedded"
	graph   map[string]any
	uses    map[string]bool
}

// ParseWorkflow reads and checks a workflow: valid JSON, an object of nodes each with a
// class_type and an inputs object, every placeholder known and standing as a whole
// string, the placeholders its kind needs present and none it could never fill.
func ParseWorkflow(kind Purpose, source string, data []byte) (*Workflow, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("workflow %s (%s): %s", source, kind, fmt.Sprintf(format, a...))
	}
	r, ok := rules[kind]
	if !ok {
		return nil, fail("unknown kind")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var g map[string]any
	if err := d.Decode(&g); err != nil {
		return nil, fail("not valid JSON in ComfyUI's API format: %v", err)
	}
	if d.More() {
		return nil, fail("text after the JSON object")
	}
	if len(g) == 0 {
		return nil, fail("no nodes")
	}
	w := &Workflow{Purpose: kind, Source: source, graph: g, uses: map[string]bool{}}
	var problems []string
	for _, id := range sortedIDs(g) {
		n, ok := g[id].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("node %q is not an object (is this the API format? use Export (API))", id))
			continue
		}
		if ct, ok := n["class_type"].(string); !ok || ct == "" {
			problems = append(problems, fmt.Sprintf("node %q has no class_type", id))
		}
		inputs, ok := n["inputs"].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("node %q has no inputs object", id))
			continue
		}
		walkStrings(inputs, func(s string) {
			name, whole := placeholderName(s)
			_, known := placeholders[name]
			switch {
			case whole && !known:
				problems = append(problems, fmt.Sprintf("node %q: unknown placeholder {{%s}} (known: %s)", id, name, knownList()))
			case whole:
				w.uses[name] = true
			case strings.Contains(s, "{{"):
				problems = append(problems, fmt.Sprintf("node %q: %q: a placeholder must be the whole string value, like \"{{prompt}}\"", id, clip(s)))
			}
		})
	}
	for _, p := range r.must {
		if !w.uses[p] {
			problems = append(problems, fmt.Sprintf("must use {{%s}}", p))
		}
	}
	for _, p := range r.never {
		if w.uses[p] {
			problems = append(problems, fmt.Sprintf("{{%s}} cannot be filled for a %s workflow", p, kind))
		}
	}
	if len(problems) > 0 {
		return nil, fail("%s", strings.Join(problems, "; "))
	}
	return w, nil
}

// Uses reports whether the workflow binds a placeholder.
func (w *Workflow) Uses(name string) bool { return w.uses[name] }

// Bind returns the graph with every placeholder replaced by its value: strings for text
// and image names, JSON numbers for seed, width, height, steps and denoise. A used
// placeholder without a value is an error.
func (w *Workflow) Bind(values map[string]any) (json.RawMessage, error) {
	var missing []string
	for name := range w.uses {
		if _, ok := values[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("workflow %s: no value for %s", w.Source, strings.Join(missing, ", "))
	}
	out, err := bindValue(w.graph, values)
	if err != nil {
		return nil, fmt.Errorf("workflow %s: %w", w.Source, err)
	}
	return json.Marshal(out)
}

// bindValue copies v, replacing placeholder strings.
func bindValue(v any, values map[string]any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			b, err := bindValue(e, values)
			if err != nil {
				return nil, err
			}
			out[k] = b
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			b, err := bindValue(e, values)
			if err != nil {
				return nil, err
			}
			out[i] = b
		}
		return out, nil
	case string:
		name, whole := placeholderName(x)
		if !whole {
			return x, nil
		}
		return encodeValue(name, values[name])
	}
	return v, nil
}

// encodeValue writes a value the way its placeholder asks.
func encodeValue(name string, v any) (any, error) {
	switch placeholders[name] {
	case phInt:
		switch n := v.(type) {
		case int:
			return json.Number(fmt.Sprint(n)), nil
		case int64:
			return json.Number(fmt.Sprint(n)), nil
		case uint64:
			return json.Number(fmt.Sprint(n)), nil
		}
	case phFloat:
		if f, ok := v.(float64); ok {
			return json.Number(fmt.Sprint(f)), nil
		}
	default:
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("{{%s}}: value %v of the wrong type", name, v)
}

// placeholderName returns "seed" for "{{seed}}" (spaces inside allowed) and whether s is
// a placeholder as a whole.
func placeholderName(s string) (string, bool) {
	inner, ok := strings.CutPrefix(s, "{{")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "}}")
	if !ok || strings.ContainsAny(inner, "{}") {
		return "", false
	}
	return strings.TrimSpace(inner), true
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case string:
		fn(x)
	}
}

func sortedIDs(g map[string]any) []string {
	ids := make([]string, 0, len(g))
	for id := range g {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func knownList() string {
	names := make([]string, 0, len(placeholders))
	for n := range placeholders {
		names = append(names, "{{"+n+"}}")
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// errNoWorkflow says a kind has no workflow, so the builtin path serves it.
var errNoWorkflow = errors.New("comfyui: no workflow for this operation")
