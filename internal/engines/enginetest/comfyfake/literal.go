package comfyfake

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// literal converts a literal input value and checks its bounds and options.
func (v *validator) literal(c *nodeClass, spec inputSpec, val any, info any) (any, *apiError) {
	x := spec.name
	conv := val
	var err error
	switch spec.typ {
	case "INT":
		conv, err = toInt(val)
	case "FLOAT":
		conv, err = toFloat(val)
	case "STRING":
		conv = pyStr(val)
	case "BOOLEAN":
		conv = truthy(val)
	}
	if err != nil {
		return nil, &apiError{Type: "invalid_input_type", Message: "Failed to convert an input value to a " + spec.typ + " value",
			Details:   fmt.Sprintf("%s, %s, %s", x, pyStr(val), err),
			ExtraInfo: map[string]any{"input_name": x, "input_config": info, "received_value": val, "exception_message": err.Error()}}
	}
	if contains(c.validated, x) {
		return conv, nil
	}
	if f := number(conv); f != nil {
		bound := func(key, kind, word string) *apiError {
			return &apiError{Type: "value_" + kind, Message: fmt.Sprintf("Value %s %s of %s", pyNumber(conv), word, spec.bounds[key]),
				Details: x, ExtraInfo: map[string]any{"input_name": x, "input_config": info, "received_value": val}}
		}
		if spec.min != nil && f.Cmp(spec.min) < 0 {
			return nil, bound("min", "smaller_than_min", "smaller than min")
		}
		if spec.max != nil && f.Cmp(spec.max) > 0 {
			return nil, bound("max", "bigger_than_max", "bigger than max")
		}
	}
	if spec.typ == "COMBO" {
		opts := spec.options
		if spec.dynamic {
			opts = v.options(c.name, x)
		}
		for _, o := range opts {
			if pyRepr(o) == pyRepr(val) {
				return conv, nil
			}
		}
		listInfo := pyRepr(opts)
		if len(opts) > 20 {
			listInfo, info = fmt.Sprintf("(list of length %d)", len(opts)), nil
		}
		return nil, &apiError{Type: "value_not_in_list", Message: "Value not in list",
			Details:   fmt.Sprintf("%s: '%s' not in %s", x, pyStr(val), listInfo),
			ExtraInfo: map[string]any{"input_name": x, "input_config": info, "received_value": val}}
	}
	return conv, nil
}

// inputConfig is the (type, options) pair ComfyUI puts in extra_info.input_config.
func (v *validator) inputConfig(c *nodeClass, spec inputSpec) any {
	if spec.dynamic {
		return []any{v.options(c.name, spec.name), map[string]any{}}
	}
	return spec.raw
}

func number(v any) *big.Float {
	switch x := v.(type) {
	case *big.Int:
		return new(big.Float).SetInt(x)
	case float64:
		if math.IsNaN(x) {
			return nil // NaN compares false both ways in Python
		}
		return big.NewFloat(x)
	}
	return nil
}

// pyNumber formats a converted INT or FLOAT as Python prints it.
func pyNumber(v any) string {
	switch x := v.(type) {
	case *big.Int:
		return x.String()
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEIN") {
			s += ".0"
		}
		return s
	}
	return fmt.Sprint(v)
}
