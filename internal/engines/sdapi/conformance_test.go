package sdapi_test

import (
	"os"
	"testing"

	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/sdapifake"
	"thumbforge/internal/engines/sdapi"
)

// control drives the sdapi fake's faults for the suite.
type control struct{ f *sdapifake.Fake }

func (c control) Hang()      { c.f.Arm(sdapifake.Hang, 1) }
func (c control) Busy()      { c.f.Arm(sdapifake.Busy, 1) }
func (c control) Fail()      { c.f.Arm(sdapifake.Fail, 1) }
func (c control) Idle() bool { return c.f.Idle() }

func TestConformanceFake(t *testing.T) {
	f, srv := sdapifake.Serve(t, sdapifake.Config{Auth: "thumb:s3cret-pass"})
	enginetest.Run(t, enginetest.Target{Kind: sdapi.Kind(), URL: srv.URL, Key: "thumb:s3cret-pass", Control: control{f}})
}

// TestConformanceReal runs the suite against a real sdapi server (A1111, Forge, SD.Next,
// sd.cpp): THUMBFORGE_TEST_SDAPI_URL, and optionally THUMBFORGE_TEST_SDAPI_KEY (user:pass)
// and _MODEL (a checkpoint to switch to).
func TestConformanceReal(t *testing.T) {
	url := enginetest.RealURL(t, "sdapi")
	enginetest.Run(t, enginetest.Target{Kind: sdapi.Kind(), URL: url, Key: os.Getenv("THUMBFORGE_TEST_SDAPI_KEY"),
		Model: os.Getenv("THUMBFORGE_TEST_SDAPI_MODEL")})
}
