package comfyfake

import (
	"encoding/json"
	"testing"
)

// TestValidationMatchesComfyUI sends broken graphs and checks the 400 answers carry
// ComfyUI's error types, messages and node_errors.
func TestValidationMatchesComfyUI(t *testing.T) {
	_, srv := Serve(t, Config{})
	type want struct {
		top     string  // error.type
		details *string // error.details, when checked
		node    string  // node id expected in node_errors
		errType string  // its first error's type
		errText string  // its first error's details
	}
	loadImage := func(name string) map[string]any {
		g := txt2img(t, nil)
		g["10"] = map[string]any{"class_type": "LoadImage", "inputs": map[string]any{"image": name}}
		g["11"] = map[string]any{"class_type": "PreviewImage", "inputs": map[string]any{"images": []any{"10", 0}}}
		return g
	}
	cases := []struct {
		name string
		body map[string]any
		want want
	}{
		{"no prompt", map[string]any{"client_id": "x"}, want{top: "no_prompt"}},
		{"prompt_id not a uuid", map[string]any{"prompt": txt2img(t, nil), "prompt_id": "job-1"}, want{top: "invalid_prompt_id"}},
		{"prompt_id upper case", map[string]any{"prompt": txt2img(t, nil), "prompt_id": "0E8F6C9A-1B2C-4D3E-8F90-A1B2C3D4E5F6"}, want{top: "invalid_prompt_id"}},
		{"missing class_type", map[string]any{"prompt": func() map[string]any {
			g := txt2img(t, nil)
			delete(g["9"].(map[string]any), "class_type")
			return g
		}()}, want{top: "invalid_prompt", details: ptr("Node ID '#9'")}},
		{"unknown class", map[string]any{"prompt": func() map[string]any {
			g := txt2img(t, nil)
			g["9"].(map[string]any)["class_type"] = "IPAdapterAdvanced"
			return g
		}()}, want{top: "invalid_prompt", details: ptr("Node ID '#9'")}},
		{"no output node", map[string]any{"prompt": func() map[string]any {
			g := txt2img(t, nil)
			delete(g, "9")
			return g
		}()}, want{top: "prompt_no_outputs"}},
		{"required input missing", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"steps": nil}})},
			want{top: "prompt_outputs_failed_validation", details: ptr(""), node: "3", errType: "required_input_missing", errText: "steps"}},
		{"output's own input missing", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"9": {"images": nil}})},
			want{top: "prompt_outputs_failed_validation", details: ptr("Required input is missing: images"), node: "9", errType: "required_input_missing"}},
		{"placeholder left in an INT", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"seed": "{{seed}}"}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "invalid_input_type",
				errText: "seed, {{seed}}, invalid literal for int() with base 10: '{{seed}}'"}},
		{"below min", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"steps": 0}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "value_smaller_than_min", errText: "steps"}},
		{"above max", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"denoise": 1.5}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "value_bigger_than_max", errText: "denoise"}},
		{"sampler not in list", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"sampler_name": "euler_x"}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "value_not_in_list",
				errText: "sampler_name: 'euler_x' not in (list of length 42)"}},
		{"unknown checkpoint", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"4": {"ckpt_name": "flux.safetensors"}})},
			want{top: "prompt_outputs_failed_validation", node: "4", errType: "value_not_in_list",
				errText: "ckpt_name: 'flux.safetensors' not in ['sd_xl_base_1.0.safetensors']"}},
		{"link to a missing node", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"8": {"samples": []any{"99", 0}}})},
			want{top: "prompt_outputs_failed_validation", node: "8", errType: "exception_during_inner_validation", errText: "'99'"}},
		{"link id as a number", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"8": {"samples": []any{3, 0}}})},
			want{top: "prompt_outputs_failed_validation", node: "8", errType: "exception_during_inner_validation", errText: "3"}},
		{"output index out of range", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"6": {"clip": []any{"4", 3}}})},
			want{top: "prompt_outputs_failed_validation", node: "6", errType: "exception_during_inner_validation", errText: "tuple index out of range"}},
		{"link of the wrong type", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"latent_image": []any{"4", 0}}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "return_type_mismatch",
				errText: "latent_image, received_type(MODEL) mismatch input_type(LATENT)"}},
		{"bad link shape", map[string]any{"prompt": txt2img(t, map[string]map[string]any{"3": {"model": []any{"4"}}})},
			want{top: "prompt_outputs_failed_validation", node: "3", errType: "bad_linked_input", errText: "model"}},
		{"image never uploaded", map[string]any{"prompt": func() map[string]any {
			g := loadImage("ref.png")
			delete(g, "9")
			return g
		}()}, want{top: "prompt_outputs_failed_validation", node: "10", errType: "custom_validation_failed", errText: "image - Invalid image file: ref.png"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got struct {
				Error      apiError `json:"error"`
				NodeErrors map[string]struct {
					Errors           []apiError `json:"errors"`
					DependentOutputs []string   `json:"dependent_outputs"`
					ClassType        string     `json:"class_type"`
				} `json:"node_errors"`
			}
			if code := call(t, "POST", srv.URL+"/prompt", tc.body, &got); code != 400 {
				t.Fatalf("status %d, want 400", code)
			}
			if got.Error.Type != tc.want.top || got.Error.Message == "" {
				t.Fatalf("error %+v, want type %s", got.Error, tc.want.top)
			}
			if tc.want.details != nil && got.Error.Details != *tc.want.details {
				t.Errorf("details %q, want %q", got.Error.Details, *tc.want.details)
			}
			if tc.want.node == "" {
				if len(got.NodeErrors) != 0 {
					t.Errorf("node_errors %+v, want none", got.NodeErrors)
				}
				return
			}
			ne, ok := got.NodeErrors[tc.want.node]
			if !ok || len(ne.Errors) == 0 {
				t.Fatalf("node_errors %+v lack node %s", got.NodeErrors, tc.want.node)
			}
			if ne.Errors[0].Type != tc.want.errType || (tc.want.errText != "" && ne.Errors[0].Details != tc.want.errText) {
				t.Errorf("node %s error %+v, want %s %q", tc.want.node, ne.Errors[0], tc.want.errType, tc.want.errText)
			}
			if len(ne.DependentOutputs) == 0 || ne.ClassType == "" {
				t.Errorf("node error lacks dependent_outputs or class_type: %+v", ne)
			}
		})
	}
}

// TestMinMaxMessages checks the texts ComfyUI builds from values and bounds.
func TestMinMaxMessages(t *testing.T) {
	_, srv := Serve(t, Config{})
	for _, tc := range []struct {
		edit map[string]map[string]any
		node string
		want string
	}{
		{map[string]map[string]any{"3": {"steps": 0}}, "3", "Value 0 smaller than min of 1"},
		{map[string]map[string]any{"3": {"denoise": 1.5}}, "3", "Value 1.5 bigger than max of 1.0"},
		{map[string]map[string]any{"3": {"cfg": -2}}, "3", "Value -2.0 smaller than min of 0.0"},
		{map[string]map[string]any{"5": {"width": 8}}, "5", "Value 8 smaller than min of 16"},
	} {
		var got struct {
			NodeErrors map[string]struct{ Errors []apiError } `json:"node_errors"`
		}
		call(t, "POST", srv.URL+"/prompt", map[string]any{"prompt": txt2img(t, tc.edit)}, &got)
		if e := got.NodeErrors[tc.node].Errors; len(e) == 0 || e[0].Message != tc.want {
			t.Errorf("%v: %+v, want %q", tc.edit, e, tc.want)
		}
	}
}

// TestLiteralConversions checks that values ComfyUI converts are accepted: numbers in
// strings, floats truncated into INT inputs, whole-number floats.
func TestLiteralConversions(t *testing.T) {
	_, srv := Serve(t, Config{})
	g := txt2img(t, map[string]map[string]any{"3": {"seed": "42", "steps": 2.9, "cfg": "7.5", "denoise": 1}, "5": {"width": 64, "height": 48}})
	var ok struct {
		PromptID   string         `json:"prompt_id"`
		NodeErrors map[string]any `json:"node_errors"`
	}
	if code := call(t, "POST", srv.URL+"/prompt", map[string]any{"prompt": g}, &ok); code != 200 || ok.PromptID == "" {
		t.Fatalf("status %d %+v", code, ok)
	}
	var raw json.RawMessage
	call(t, "GET", srv.URL+"/history/"+ok.PromptID, nil, &raw)
	entry := waitHistory(t, srv.URL, ok.PromptID)
	if statusStr(entry) != "success" {
		t.Fatalf("status %v", entry["status"])
	}
	if b := outputImage(t, srv.URL, entry).Bounds(); b.Dx() != 64 || b.Dy() != 48 {
		t.Errorf("output %v, want 64x48", b)
	}
}

func ptr(s string) *string { return &s }
