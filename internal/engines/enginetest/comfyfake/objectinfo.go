package comfyfake

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
)

//go:embed object_info.json
var objectInfoJSON []byte

// inputSpec is one input of a node class: its type (or the options of a combo) and
// numeric bounds.
type inputSpec struct {
	name     string
	typ      string // "INT", "FLOAT", "STRING", "BOOLEAN", a link type such as "IMAGE", or "COMBO"
	options  []any  // combo options; nil for other types
	dynamic  bool   // combo filled from the server's state (checkpoints, input files)
	min, max *big.Float
	bounds   map[string]string // min and max as object_info writes them, for messages
	raw      json.RawMessage   // the spec as object_info shows it
}

// nodeClass is one node class of object_info.
type nodeClass struct {
	name       string
	required   []inputSpec
	optional   []inputSpec
	outputs    []string
	outputNode bool
	// validated lists inputs that the class checks itself (VALIDATE_INPUTS): they skip
	// the min/max and combo checks and get the class's own check instead.
	validated []string
}

// classes parses the embedded object_info subset.
func classes() (map[string]*nodeClass, error) {
	var raw map[string]struct {
		Input struct {
			Required map[string]json.RawMessage `json:"required"`
			Optional map[string]json.RawMessage `json:"optional"`
		} `json:"input"`
		InputOrder struct {
			Required []string `json:"required"`
			Optional []string `json:"optional"`
		} `json:"input_order"`
		Output     []string `json:"output"`
		OutputNode bool     `json:"output_node"`
	}
	if err := json.Unmarshal(objectInfoJSON, &raw); err != nil {
		return nil, err
	}
	out := map[string]*nodeClass{}
	for name, c := range raw {
		nc := &nodeClass{name: name, outputs: c.Output, outputNode: c.OutputNode}
		for _, in := range c.InputOrder.Required {
			s, err := parseSpec(in, c.Input.Required[in])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, in, err)
			}
			nc.required = append(nc.required, s)
		}
		for _, in := range c.InputOrder.Optional {
			s, err := parseSpec(in, c.Input.Optional[in])
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, in, err)
			}
			nc.optional = append(nc.optional, s)
		}
		out[name] = nc
	}
	for _, n := range []string{"LoadImage", "LoadImageMask"} {
		out[n].validated = []string{"image"}
	}
	return out, nil
}

// parseSpec reads [TYPE or [options...], {default, min, max, ...}].
func parseSpec(name string, raw json.RawMessage) (inputSpec, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) == 0 {
		return inputSpec{}, fmt.Errorf("bad input spec %s", raw)
	}
	s := inputSpec{name: name, raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(parts[0]), []byte("[")) {
		s.typ = "COMBO"
		if err := json.Unmarshal(parts[0], &s.options); err != nil {
			return s, err
		}
		s.dynamic = len(s.options) == 0
	} else if err := json.Unmarshal(parts[0], &s.typ); err != nil {
		return s, err
	}
	if len(parts) > 1 {
		var opts map[string]json.RawMessage
		if err := json.Unmarshal(parts[1], &opts); err != nil {
			return s, err
		}
		for key, dst := range map[string]**big.Float{"min": &s.min, "max": &s.max} {
			if v, ok := opts[key]; ok {
				f, _, err := big.ParseFloat(string(v), 10, 128, big.ToNearestEven)
				if err != nil {
					return s, err
				}
				*dst = f
				if s.bounds == nil {
					s.bounds = map[string]string{}
				}
				s.bounds[key] = string(v)
			}
		}
	}
	return s, nil
}

// objectInfo renders the classes as GET /object_info does, with the dynamic combos
// (checkpoints, input files) filled from the server's state.
func objectInfo(fill func(class, input string) []any) map[string]any {
	var raw map[string]map[string]any
	if err := json.Unmarshal(objectInfoJSON, &raw); err != nil {
		panic(err) // embedded and checked by classes() at start
	}
	for class, c := range raw {
		input := c["input"].(map[string]any)
		for _, group := range []string{"required", "optional"} {
			ins, _ := input[group].(map[string]any)
			for name, spec := range ins {
				parts := spec.([]any)
				if opts, ok := parts[0].([]any); ok && len(opts) == 0 {
					parts[0] = fill(class, name)
				}
			}
		}
	}
	out := map[string]any{}
	for k, v := range raw {
		out[k] = v
	}
	return out
}
