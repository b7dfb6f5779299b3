package comfyfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// node is one node of an API-format graph as sent.
type node struct {
	id        string
	classType any // as sent; ComfyUI looks it up as is
	hasClass  bool
	inputs    map[string]any // decoded with json.Number
	hasInputs bool
}

// graph is an API-format prompt, keeping the order of its nodes as sent (ComfyUI walks a
// Python dict, which keeps insertion order).
type graph struct {
	order []string
	nodes map[string]*node
}

// parseGraph decodes a prompt object. A prompt that is not an object of objects is an
// error (ComfyUI fails on it with an exception).
func parseGraph(raw json.RawMessage) (*graph, error) {
	keys, err := objectKeys(raw)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	g := &graph{order: keys, nodes: map[string]*node{}}
	for _, id := range keys {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(m[id], &fields); err != nil {
			return nil, fmt.Errorf("node %s is not an object", id)
		}
		n := &node{id: id}
		if ct, ok := fields["class_type"]; ok {
			n.hasClass = true
			if n.classType, err = decodeValue(ct); err != nil {
				return nil, err
			}
		}
		if in, ok := fields["inputs"]; ok {
			n.hasInputs = true
			v, err := decodeValue(in)
			if err != nil {
				return nil, err
			}
			if n.inputs, ok = v.(map[string]any); !ok {
				return nil, fmt.Errorf("node %s: inputs is not an object", id)
			}
		}
		g.nodes[id] = n
	}
	return g, nil
}

func decodeValue(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// objectKeys returns the keys of a JSON object in the order they appear; duplicate keys
// count once, at their first place (Python keeps the first place and the last value).
func objectKeys(raw json.RawMessage) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, errors.New("prompt is not an object")
	}
	var keys []string
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// pyRepr renders a decoded JSON value the way Python's repr shows it, for messages that
// ComfyUI builds from Python values.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return "'" + strings.ReplaceAll(x, "'", `\'`) + "'"
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyStr is Python's str() of a decoded JSON value.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyTypeName is the name of a decoded JSON value's Python type.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "float"
		}
		return "int"
	case []any:
		return "list"
	}
	return "dict"
}

// toInt is Python's int(v): integers as they are, floats truncated, bools 0/1, strings
// holding an integer (surrounding spaces allowed); anything else fails.
func toInt(v any) (*big.Int, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), nil
		}
		return big.NewInt(0), nil
	case json.Number:
		if n, ok := new(big.Int).SetString(x.String(), 10); ok {
			return n, nil
		}
		f, _, err := big.ParseFloat(x.String(), 10, 256, big.ToZero)
		if err != nil {
			return nil, err
		}
		n, _ := f.Int(nil)
		return n, nil
	case string:
		s := strings.TrimSpace(strings.ReplaceAll(x, "_", ""))
		if n, ok := new(big.Int).SetString(s, 10); ok && s != "" {
			return n, nil
		}
		return nil, fmt.Errorf("invalid literal for int() with base 10: %s", pyRepr(x))
	case nil:
		return nil, errors.New("int() argument must be a string, a bytes-like object or a real number, not 'NoneType'")
	}
	return nil, fmt.Errorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyTypeName(v))
}

// toFloat is Python's float(v).
func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		return strconv.ParseFloat(x.String(), 64)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("could not convert string to float: %s", pyRepr(x))
		}
		return f, nil
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", pyTypeName(v))
}

// truthy is Python's bool(v).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, _ := strconv.ParseFloat(x.String(), 64)
		return f != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}
