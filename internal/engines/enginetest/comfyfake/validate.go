package comfyfake

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// apiError is ComfyUI's error object: {type, message, details, extra_info}.
type apiError struct {
	Type      string         `json:"type"`
	Message   string         `json:"message"`
	Details   string         `json:"details"`
	ExtraInfo map[string]any `json:"extra_info"`
}

// nodeError is one entry of node_errors.
type nodeError struct {
	Errors           []apiError `json:"errors"`
	DependentOutputs []string   `json:"dependent_outputs"`
	ClassType        any        `json:"class_type"`
}

// pyException stands for a Python exception raised while validating (a link to a missing
// node, an output index out of range): ComfyUI reports those with their type and text.
type pyException struct{ typ, msg string }

func (e *pyException) Error() string { return e.msg }

type validation struct {
	ok     bool
	errors []apiError
}

// validator runs ComfyUI's validate_prompt over a graph. values receives each node's
// inputs converted as ComfyUI converts them (INT, FLOAT, STRING, BOOLEAN), for execution.
type validator struct {
	g         *graph
	classes   map[string]*nodeClass
	options   func(class, input string) []any // dynamic combo options
	fileFound func(annotated string) bool
	done      map[string]validation
	doneOrder []string
	values    map[string]map[string]any
}

func (v *validator) remember(id string, r validation) {
	if _, ok := v.done[id]; !ok {
		v.doneOrder = append(v.doneOrder, id)
	}
	v.done[id] = r
}

// prompt validates the whole graph. It returns the outputs that may run, the node errors
// of those that may not, and the top-level error when none may run.
func (v *validator) prompt(partial []string) (good []string, nodeErrors map[string]*nodeError, top *apiError) {
	var outputs []string
	for _, id := range v.g.order {
		n := v.g.nodes[id]
		if !n.hasClass {
			return nil, map[string]*nodeError{}, &apiError{Type: "invalid_prompt",
				Message: "Cannot execute because a node is missing the class_type property.",
				Details: fmt.Sprintf("Node ID '#%s'", id), ExtraInfo: map[string]any{}}
		}
		c := v.class(n)
		if c == nil {
			return nil, map[string]*nodeError{}, &apiError{Type: "invalid_prompt",
				Message: fmt.Sprintf("Cannot execute because node %s does not exist.", pyStr(n.classType)),
				Details: fmt.Sprintf("Node ID '#%s'", id), ExtraInfo: map[string]any{}}
		}
		if c.outputNode && (partial == nil || contains(partial, id)) {
			outputs = append(outputs, id)
		}
	}
	if len(outputs) == 0 {
		return nil, map[string]*nodeError{}, &apiError{Type: "prompt_no_outputs", Message: "Prompt has no outputs", ExtraInfo: map[string]any{}}
	}
	v.done, v.values = map[string]validation{}, map[string]map[string]any{}
	nodeErrors = map[string]*nodeError{}
	var failedDetails []string
	for _, o := range outputs {
		r, exc := v.inputs(o)
		if exc != nil {
			r = validation{errors: []apiError{{Type: "exception_during_validation", Message: "Exception when validating node",
				Details: exc.msg, ExtraInfo: map[string]any{"exception_type": exc.typ, "traceback": []string{}}}}}
			v.remember(o, r)
		}
		if r.ok {
			good = append(good, o)
			continue
		}
		for _, e := range r.errors {
			failedDetails = append(failedDetails, e.Message+": "+e.Details)
		}
		for _, id := range v.doneOrder {
			d := v.done[id]
			if d.ok || len(d.errors) == 0 {
				continue
			}
			ne, ok := nodeErrors[id]
			if !ok {
				ne = &nodeError{Errors: d.errors, DependentOutputs: []string{}, ClassType: v.g.nodes[id].classType}
				nodeErrors[id] = ne
			}
			ne.DependentOutputs = append(ne.DependentOutputs, o)
		}
	}
	if len(good) == 0 {
		return nil, nodeErrors, &apiError{Type: "prompt_outputs_failed_validation", Message: "Prompt outputs failed validation",
			Details: strings.Join(failedDetails, "\n"), ExtraInfo: map[string]any{}}
	}
	return good, nodeErrors, nil
}

func (v *validator) class(n *node) *nodeClass {
	name, ok := n.classType.(string)
	if !ok {
		return nil
	}
	return v.classes[name]
}

// inputs is ComfyUI's validate_inputs for one node, memoised.
func (v *validator) inputs(id string) (validation, *pyException) {
	if r, ok := v.done[id]; ok {
		return r, nil
	}
	n := v.g.nodes[id]
	if !n.hasInputs {
		return validation{}, &pyException{"KeyError", "'inputs'"}
	}
	c := v.class(n)
	var errs []apiError
	valid := true
	values := map[string]any{}
	specs := append(append([]inputSpec(nil), c.required...), c.optional...)
	for i, spec := range specs {
		x := spec.name
		val, present := n.inputs[x]
		if !present {
			if i < len(c.required) {
				errs = append(errs, apiError{Type: "required_input_missing", Message: "Required input is missing",
					Details: x, ExtraInfo: map[string]any{"input_name": x}})
			}
			continue
		}
		info := v.inputConfig(c, spec)
		if link, ok := val.([]any); ok {
			e, ok, exc := v.link(x, link, spec, info)
			if exc != nil {
				return validation{}, exc
			}
			if e != nil {
				errs = append(errs, *e)
			}
			if !ok {
				valid = false
			}
			values[x] = link
			continue
		}
		conv, e := v.literal(c, spec, val, info)
		if e != nil {
			errs = append(errs, *e)
			continue
		}
		values[x] = conv
	}
	for _, x := range c.validated {
		if name, ok := values[x].(string); ok && !v.fileFound(name) {
			errs = append(errs, apiError{Type: "custom_validation_failed", Message: "Custom validation failed for node",
				Details: x + " - Invalid image file: " + name, ExtraInfo: map[string]any{"input_name": x}})
		}
	}
	r := validation{ok: len(errs) == 0 && valid, errors: errs}
	if r.errors == nil {
		r.errors = []apiError{}
	}
	v.values[id] = values
	v.remember(id, r)
	return r, nil
}

// link checks a linked input [node id, output index]. It returns the input's own error,
// whether the input is valid (false also when the linked node is not), or a Python
// exception for links ComfyUI cannot follow.
func (v *validator) link(x string, val []any, spec inputSpec, info any) (*apiError, bool, *pyException) {
	if len(val) != 2 {
		return &apiError{Type: "bad_linked_input", Message: "Bad linked input, must be a length-2 list of [node_id, slot_index]",
			Details: x, ExtraInfo: map[string]any{"input_name": x, "input_config": info, "received_value": val}}, false, nil
	}
	oid, ok := val[0].(string)
	switch {
	case !ok && (isList(val[0]) || isMap(val[0])):
		return nil, false, &pyException{"TypeError", "unhashable type: '" + pyTypeName(val[0]) + "'"}
	case !ok || v.g.nodes[oid] == nil:
		return nil, false, &pyException{"KeyError", pyRepr(val[0])}
	}
	outs := v.class(v.g.nodes[oid]).outputs
	idx, exc := pyIndex(val[1], len(outs))
	if exc != nil {
		return nil, false, exc
	}
	received := outs[idx]
	if spec.typ == "COMBO" || !typesMeet(received, spec.typ) {
		want := spec.typ
		if spec.typ == "COMBO" {
			want = pyRepr(spec.options)
		}
		return &apiError{Type: "return_type_mismatch", Message: "Return type mismatch between linked nodes",
			Details:   fmt.Sprintf("%s, received_type(%s) mismatch input_type(%s)", x, received, want),
			ExtraInfo: map[string]any{"input_name": x, "input_config": info, "received_type": received, "linked_node": val}}, false, nil
	}
	r, exc := v.inputs(oid)
	if exc != nil {
		v.remember(oid, validation{errors: []apiError{{Type: "exception_during_inner_validation",
			Message: "Exception when validating inner node", Details: exc.msg,
			ExtraInfo: map[string]any{"input_name": x, "input_config": info, "exception_message": exc.msg,
				"exception_type": exc.typ, "traceback": []string{}, "linked_node": val}}}})
		return nil, false, nil
	}
	return nil, r.ok, nil
}

// pyIndex is Python's tuple indexing rules for an output slot: ints (and bools) only,
// negative counting from the end.
func pyIndex(v any, n int) (int, *pyException) {
	var i int64
	switch x := v.(type) {
	case bool:
		if x {
			i = 1
		}
	case json.Number:
		var err error
		if i, err = strconv.ParseInt(x.String(), 10, 64); err != nil {
			return 0, &pyException{"TypeError", "tuple indices must be integers or slices, not " + pyTypeName(v)}
		}
	default:
		return 0, &pyException{"TypeError", "tuple indices must be integers or slices, not " + pyTypeName(v)}
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, &pyException{"IndexError", "tuple index out of range"}
	}
	return int(i), nil
}

// typesMeet is validate_node_input: equal types, or comma-separated unions that overlap.
func typesMeet(received, input string) bool {
	if received == input {
		return true
	}
	in := map[string]bool{}
	for _, t := range strings.Split(input, ",") {
		in[strings.TrimSpace(t)] = true
	}
	for _, t := range strings.Split(received, ",") {
		if in[strings.TrimSpace(t)] {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isList(v any) bool { _, ok := v.([]any); return ok }
func isMap(v any) bool  { _, ok := v.(map[string]any); return ok }
