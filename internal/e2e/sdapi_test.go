package e2e

import (
	"image"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/sdapifake"
)

// sdapiKey is HTTP Basic user:pass; its password is the key no client or log may see.
const sdapiKey = "thumb:" + engineKey

// withSDAPI points the app at sdapi fakes with key, logging into log.
func withSDAPI(log *syncBuffer, key string, urls ...string) option {
	return withEngine(log, engines.Config{Kind: "sdapi", URLs: urls, Key: key})
}

func TestSDAPIBasicAuthSizesAndCharges(t *testing.T) {
	log := &syncBuffer{}
	fake, srv := sdapifake.Serve(t, sdapifake.Config{Auth: sdapiKey})
	e := start(t, 1000, withSDAPI(log, sdapiKey, srv.URL))
	everyFormat(t, e, log, "mdl_2", func() {})
	ref := e.serveImage("/ref.jpg", testImage(800, 600, 40))
	if r := e.post("/v2/thumbnail/image", map[string]any{"image_url": ref, "model": "mdl_2", "format": "16:9", "image_weight": "low"}); r.Status != 200 {
		t.Fatalf("image thumbnail: %d %s", r.Status, r.Raw)
	}
	in := testImage(1280, 720, 90)
	mask := image.NewGray(in.Rect)
	for i := range mask.Pix[:len(mask.Pix)/2] {
		mask.Pix[i] = 255
	}
	r := e.post("/v2/thumbnail/edit", map[string]any{"image_url": e.serveImage("/in.jpg", in), "mask_url": e.serveImage("/mask.jpg", mask), "prompt": "turn the sky into a sunset", "format": "16:9"})
	if r.Status != 200 {
		t.Fatalf("edit: %d %s", r.Status, r.Raw)
	}
	if n1, n2 := fake.Count("POST", "/sdapi/v1/txt2img"), fake.Count("POST", "/sdapi/v1/img2img"); n1 != 3 || n2 != 2 {
		t.Fatalf("txt2img %d, img2img %d; want 3 and 2", n1, n2)
	}
	for _, rq := range fake.Requests() {
		if rq.Path == "/sdapi/v1/txt2img" && !strings.Contains(string(rq.Body), "Best budget travel tips for Japan") {
			t.Fatalf("the prompt was not sent verbatim: %.200s", rq.Body)
		}
	}
	if got := e.balance(e.Account); got != int64(1000-3*20-20-12) {
		t.Fatalf("balance %d", got)
	}
	noKeyLeak(t, log)
}

// TestSDAPIWrongKey: a refused key is GENERATION_FAILED for the client, the backend is
// not ready, and nothing is charged.
func TestSDAPIWrongKey(t *testing.T) {
	log := &syncBuffer{}
	_, srv := sdapifake.Serve(t, sdapifake.Config{Auth: "thumb:other"})
	e := start(t, 1000, withSDAPI(log, sdapiKey, srv.URL))
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Locked out", "model": "mdl_3", "format": "1:1"})
	if r.Status != 500 || r.code() != "GENERATION_FAILED" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if rz := e.do("GET", "/readyz", "", nil); rz.Status != 503 {
		t.Fatalf("readyz: %d %s", rz.Status, rz.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("balance %d", got)
	}
	noKeyLeak(t, log, r)
}

// TestSDAPITimeoutInterruptsOurTask: past the deadline the request is 504 and the server's
// job, ours, is interrupted; nothing is charged.
func TestSDAPITimeoutInterruptsOurTask(t *testing.T) {
	fake, srv := sdapifake.Serve(t, sdapifake.Config{})
	e := start(t, 1000, withSDAPI(nil, "", srv.URL), func(c *app.Config) { c.Timeouts.Generation = 500 * time.Millisecond })
	fake.Arm(sdapifake.Hang, 1)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Too slow", "model": "mdl_3", "format": "16:9"})
	if r.Status != 504 || r.code() != "GENERATION_TIMEOUT" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	waitUntil(t, "the interrupt", func() bool {
		in := fake.Interrupts()
		return len(in) == 1 && strings.HasPrefix(in[0].Current, "thumbforge-")
	})
	waitUntil(t, "the server to be idle", fake.Idle)
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("balance %d", got)
	}
}
