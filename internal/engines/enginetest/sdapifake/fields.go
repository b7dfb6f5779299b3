package sdapifake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// kind is a pydantic field type of the request models.
type kind int

const (
	kStr kind = iota
	kInt
	kFloat
	kBool
	kDict
	kList
	kStrList
)

// common are the fields of StableDiffusionProcessing that the API exposes, plus the ones
// models.py adds to both requests (all Optional: null is accepted).
var common = map[string]kind{
	"prompt": kStr, "negative_prompt": kStr, "styles": kStrList, "seed": kInt, "subseed": kInt,
	"subseed_strength": kFloat, "seed_resize_from_h": kInt, "seed_resize_from_w": kInt,
	"sampler_name": kStr, "scheduler": kStr, "batch_size": kInt, "n_iter": kInt, "steps": kInt,
	"cfg_scale": kFloat, "width": kInt, "height": kInt, "restore_faces": kBool, "tiling": kBool,
	"do_not_save_samples": kBool, "do_not_save_grid": kBool, "eta": kFloat, "denoising_strength": kFloat,
	"s_min_uncond": kFloat, "s_churn": kFloat, "s_tmax": kFloat, "s_tmin": kFloat, "s_noise": kFloat,
	"override_settings": kDict, "override_settings_restore_afterwards": kBool,
	"refiner_checkpoint": kStr, "refiner_switch_at": kFloat, "disable_extra_networks": kBool,
	"comments": kDict, "sampler_index": kStr, "script_name": kStr, "script_args": kList,
	"send_images": kBool, "save_images": kBool, "alwayson_scripts": kDict, "force_task_id": kStr,
	"infotext": kStr,
}

// txt2imgOnly are StableDiffusionProcessingTxt2Img's own fields.
var txt2imgOnly = map[string]kind{
	"enable_hr": kBool, "firstphase_width": kInt, "firstphase_height": kInt, "hr_scale": kFloat,
	"hr_upscaler": kStr, "hr_second_pass_steps": kInt, "hr_resize_x": kInt, "hr_resize_y": kInt,
	"hr_checkpoint_name": kStr, "hr_sampler_name": kStr, "hr_scheduler": kStr, "hr_prompt": kStr,
	"hr_negative_prompt": kStr, "firstpass_image": kStr,
}

// img2imgOnly are StableDiffusionProcessingImg2Img's own fields and the API's additions.
var img2imgOnly = map[string]kind{
	"init_images": kList, "resize_mode": kInt, "image_cfg_scale": kFloat, "mask": kStr,
	"mask_blur_x": kInt, "mask_blur_y": kInt, "mask_blur": kInt, "mask_round": kBool,
	"inpainting_fill": kInt, "inpaint_full_res": kBool, "inpaint_full_res_padding": kInt,
	"inpainting_mask_invert": kInt, "initial_noise_multiplier": kFloat, "latent_mask": kStr,
	"include_init_images": kBool,
}

// problem is one entry of FastAPI's 422 detail list (pydantic v1 wording).
type problem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

var kindErrors = map[kind][2]string{
	kStr:     {"str type expected", "type_error.str"},
	kInt:     {"value is not a valid integer", "type_error.integer"},
	kFloat:   {"value is not a valid float", "type_error.float"},
	kBool:    {"value could not be parsed to a boolean", "type_error.bool"},
	kDict:    {"value is not a valid dict", "type_error.dict"},
	kList:    {"value is not a valid list", "type_error.list"},
	kStrList: {"value is not a valid list", "type_error.list"},
}

// decodeRequest parses a request body into fields, checking each against the model. It
// returns every problem, as FastAPI does.
func decodeRequest(body []byte, img2img bool) (map[string]any, []problem) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, []problem{{Loc: []any{"body"}, Msg: "field required", Type: "value_error.missing"}}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, []problem{{Loc: []any{"body", 0}, Msg: "Expecting value: " + err.Error(), Type: "value_error.jsondecode"}}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, []problem{{Loc: []any{"body"}, Msg: "value is not a valid dict", Type: "type_error.dict"}}
	}
	var probs []problem
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want, known := common[k]
		if !known {
			own := txt2imgOnly
			if img2img {
				own = img2imgOnly
			}
			want, known = own[k]
		}
		if !known {
			probs = append(probs, problem{Loc: []any{"body", k}, Msg: "extra fields not permitted", Type: "value_error.extra"})
			continue
		}
		probs = append(probs, checkKind(k, obj[k], want)...)
	}
	return obj, probs
}

// checkKind checks one value strictly: integers are integer literals, booleans JSON
// booleans, strings JSON strings; null is always allowed (every field is Optional).
func checkKind(name string, v any, want kind) []problem {
	if v == nil {
		return nil
	}
	bad := func() []problem {
		e := kindErrors[want]
		return []problem{{Loc: []any{"body", name}, Msg: e[0], Type: e[1]}}
	}
	switch want {
	case kStr:
		if _, ok := v.(string); !ok {
			return bad()
		}
	case kInt:
		n, ok := v.(json.Number)
		if !ok || strings.ContainsAny(n.String(), ".eE") {
			return bad()
		}
	case kFloat:
		if _, ok := v.(json.Number); !ok {
			return bad()
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			return bad()
		}
	case kDict:
		if _, ok := v.(map[string]any); !ok {
			return bad()
		}
	case kList, kStrList:
		l, ok := v.([]any)
		if !ok {
			return bad()
		}
		if want == kStrList {
			var probs []problem
			for i, e := range l {
				if _, ok := e.(string); !ok {
					probs = append(probs, problem{Loc: []any{"body", name, i}, Msg: "str type expected", Type: "type_error.str"})
				}
			}
			return probs
		}
	}
	return nil
}

// samplers are A1111's sampler names and aliases (sd_samplers_kdiffusion and friends).
var samplers = map[string]bool{}

func init() {
	for _, s := range []string{
		"DPM++ 2M", "k_dpmpp_2m", "DPM++ SDE", "k_dpmpp_sde", "DPM++ 2M SDE", "k_dpmpp_2m_sde",
		"DPM++ 2M SDE Heun", "DPM++ 2S a", "k_dpmpp_2s_a", "DPM++ 3M SDE", "k_dpmpp_3m_sde",
		"Euler a", "k_euler_a", "Euler", "k_euler", "LMS", "k_lms", "Heun", "k_heun", "DPM2", "k_dpm_2",
		"DPM2 a", "k_dpm_2_a", "DPM fast", "DPM adaptive", "Restart", "DDIM", "DDIM CFG++", "PLMS",
		"UniPC", "LCM",
	} {
		samplers[s] = true
	}
}

// number reads an int or float field with a default.
func number(obj map[string]any, name string, def float64) float64 {
	n, ok := obj[name].(json.Number)
	if !ok {
		return def
	}
	f, err := n.Float64()
	if err != nil {
		return def
	}
	return f
}

func str(obj map[string]any, name string) string {
	s, _ := obj[name].(string)
	return s
}

func describe(p []problem) string {
	var b strings.Builder
	for _, x := range p {
		fmt.Fprintf(&b, "%v: %s; ", x.Loc, x.Msg)
	}
	return b.String()
}
