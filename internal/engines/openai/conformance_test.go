package openai_test

import (
	"testing"

	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/engines/openai"
)

// control drives the OpenAI fake's faults for the suite.
type control struct{ f *openaifake.Fake }

func (c control) Hang()      { c.f.Arm(openaifake.Hang, 1) }
func (c control) Busy()      { c.f.Arm(openaifake.Busy, 1) }
func (c control) Fail()      { c.f.Arm(openaifake.Fail, 1) }
func (c control) Idle() bool { return c.f.Stats().InFlight == 0 }

// refuser adds OpenAI's safety system (sd-server has none).
type refuser struct{ control }

func (c refuser) Refuse() { c.f.Arm(openaifake.Moderation, 1) }

func TestConformanceFake(t *testing.T) {
	for _, model := range []string{"gpt-image-1", "gpt-image-2"} {
		t.Run(model, func(t *testing.T) {
			f, srv := openaifake.Serve(t, openaifake.Config{Key: "sk-test-conformance"})
			enginetest.Run(t, enginetest.Target{Kind: openai.Kind(), URL: srv.URL + "/v1",
				Key: "sk-test-conformance", Model: model, Control: refuser{control{f}}})
		})
	}
}

func TestConformanceFakeSDCpp(t *testing.T) {
	f, srv := openaifake.Serve(t, openaifake.Config{Flavor: "sdcpp"})
	enginetest.Run(t, enginetest.Target{Kind: openai.Kind(), URL: srv.URL + "/v1", Model: openai.SDCppModel, Control: control{f}})
}

// TestConformanceReal runs the suite against a real server: THUMBFORGE_TEST_OPENAI_URL
// (the API base with /v1), THUMBFORGE_TEST_OPENAI_KEY and THUMBFORGE_TEST_OPENAI_MODEL.
func TestConformanceReal(t *testing.T) {
	url := enginetest.RealURL(t, "openai")
	enginetest.Run(t, enginetest.Target{Kind: openai.Kind(), URL: url,
		Key: getenv("THUMBFORGE_TEST_OPENAI_KEY"), Model: getenv("THUMBFORGE_TEST_OPENAI_MODEL")})
}
