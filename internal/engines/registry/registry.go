// Package registry lists the generative engine kinds thumbforge can drive (--engine NAME).
// Adding a kind is one line in Kinds.
package registry

import (
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/comfyui"
	"thumbforge/internal/engines/openai"
	"thumbforge/internal/engines/sdapi"
)

// Kinds returns every generative kind by name (the builtin is not one: it needs none).
func Kinds() map[string]engines.Kind {
	return map[string]engines.Kind{
		"openai":  openai.Kind(),
		"comfyui": comfyui.Kind(),
		"sdapi":   sdapi.Kind(),
	}
}
