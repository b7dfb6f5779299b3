package main

import (
	"flag"

	"thumbforge/internal/engines"
)

// workflowFlags registers --engine-workflows: the directory of the operator's ComfyUI
// workflows (text.json, image.json, edit.json, persona.json, style.json, faceswap.json)
// that replace or add to the embedded ones. They are checked when the engine is built,
// so a bad file stops serve, and engine check lists them.
func workflowFlags(fs *flag.FlagSet, c *engines.Config) {
	fs.StringVar(&c.Workflows, "engine-workflows", envStr("THUMBFORGE_ENGINE_WORKFLOWS", ""),
		"comfyui: directory of API-format workflows (text.json, image.json, edit.json, persona.json, style.json, faceswap.json) replacing or adding to the embedded ones (THUMBFORGE_ENGINE_WORKFLOWS)")
}
