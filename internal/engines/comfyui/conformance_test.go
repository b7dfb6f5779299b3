package comfyui_test

import (
	"os"
	"testing"

	"thumbforge/internal/engines/comfyui"
	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/comfyfake"
)

// control drives the ComfyUI fake's faults for the suite.
type control struct{ f *comfyfake.Fake }

func (c control) Hang() { c.f.Arm(comfyfake.Hang, 1) }
func (c control) Busy() { c.f.Arm(comfyfake.Busy, 1) }
func (c control) Fail() { c.f.Arm(comfyfake.Fail, 1) }
func (c control) Idle() bool {
	running, pending := c.f.Queue()
	return running == 0 && pending == 0
}

func TestConformanceFake(t *testing.T) {
	f, srv := comfyfake.Serve(t, comfyfake.Config{Token: "comfy-conformance-key"})
	enginetest.Run(t, enginetest.Target{Kind: comfyui.Kind(), URL: srv.URL, Key: "comfy-conformance-key", Control: control{f}})
}

// TestConformanceReal runs the suite against a real ComfyUI: THUMBFORGE_TEST_COMFYUI_URL,
// and optionally THUMBFORGE_TEST_COMFYUI_KEY, _MODEL (a checkpoint it has) and
// _WORKFLOWS (a workflows directory).
func TestConformanceReal(t *testing.T) {
	url := enginetest.RealURL(t, "comfyui")
	enginetest.Run(t, enginetest.Target{Kind: comfyui.Kind(), URL: url, Key: os.Getenv("THUMBFORGE_TEST_COMFYUI_KEY"),
		Model: os.Getenv("THUMBFORGE_TEST_COMFYUI_MODEL"), Workflows: os.Getenv("THUMBFORGE_TEST_COMFYUI_WORKFLOWS")})
}
