package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest"
	"thumbforge/internal/engines/enginetest/openaifake"
	"thumbforge/internal/testutil"
)

// engineKey is the backend key the tests configure; it must never reach a client or a
// log line.
const engineKey = "sk-e2e-secret-0123456789abcdef"

// syncBuffer is a log destination safe for the app's goroutines.
type syncBuffer = testutil.SyncBuffer

// withOpenAI points the app at OpenAI fakes (their API bases), logging into log.
func withOpenAI(log *syncBuffer, urls ...string) option {
	return withEngine(log, engines.Config{Kind: "openai", URLs: urls, Key: engineKey, Model: "gpt-image-1"})
}

// openaiFake starts a fake that requires engineKey; its API base is the returned URL.
func openaiFake(t *testing.T, cfg openaifake.Config) (*openaifake.Fake, string) {
	cfg.Key = engineKey
	f, srv := openaifake.Serve(t, cfg)
	return f, srv.URL + "/v1"
}

// noKeyLeak fails the test when the key appears in a response or the log.
func noKeyLeak(t *testing.T, log *syncBuffer, rs ...response) {
	t.Helper()
	for _, r := range rs {
		if strings.Contains(string(r.Raw), engineKey) || strings.Contains(strings.Join(r.Header.Values("Www-Authenticate"), ""), engineKey) {
			t.Errorf("the engine key is in a response: %s", r.Raw)
		}
	}
	if log != nil && strings.Contains(log.String(), engineKey) {
		t.Error("the engine key is in the log")
	}
}

func TestOpenAIThumbnailsSizesAndCharges(t *testing.T) {
	log := &syncBuffer{}
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(log, url))
	everyFormat(t, e, log, "mdl_4_5", func() {})
	ref := e.serveImage("/ref.jpg", testImage(800, 600, 40))
	r := e.post("/v2/thumbnail/image", map[string]any{"image_url": ref, "model": "mdl_2", "format": "9:16", "image_weight": "high"})
	if r.Status != 200 {
		t.Fatalf("image thumbnail: %d %s", r.Status, r.Raw)
	}
	r = e.post("/v1/recreate", map[string]any{"image_url": ref, "model": "mdl-3", "prompt": "make it dramatic"})
	if r.Status != 200 || r.str("output") == "" {
		t.Fatalf("v1 recreate: %d %s", r.Status, r.Raw)
	}
	if got, want := e.balance(e.Account), int64(1000-3*13-20-16); got != want {
		t.Fatalf("balance %d, want %d", got, want)
	}
	gens, edits := fake.Count("POST", "/v1/images/generations"), fake.Count("POST", "/v1/images/edits")
	if gens != 3 || edits != 2 {
		t.Fatalf("the fake saw %d generations and %d edits, want 3 and 2", gens, edits)
	}
	for _, rq := range fake.Requests() {
		if rq.Path == "/v1/images/generations" && !bytes.Contains(rq.Body, []byte("Best budget travel tips for Japan")) {
			t.Fatalf("the prompt was not sent verbatim: %s", rq.Body)
		}
	}
}

func TestOpenAIModerationIsRejectedAndFree(t *testing.T) {
	log := &syncBuffer{}
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(log, url))
	fake.Arm(openaifake.Moderation, 2)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "A duel at dawn", "model": "mdl_3", "format": "16:9"})
	if r.Status != 422 || r.code() != "GENERATION_REJECTED" {
		t.Fatalf("v2: %d %s", r.Status, r.Raw)
	}
	if strings.Contains(string(r.Raw), "safety_violations") {
		t.Fatalf("the backend's text reached the client: %s", r.Raw)
	}
	r1 := e.post("/v1/thumbnail", map[string]any{"prompt": "A duel at dawn", "model": "mdl-3", "format": "16:9"})
	if r1.Status != 400 || r1.code() != "CONTENT_POLICY_VIOLATION" {
		t.Fatalf("v1: %d %s", r1.Status, r1.Raw)
	}
	if _, ok := r1.Body["error"].(map[string]any)["details"].(string); !ok {
		t.Fatalf("v1 error shape: %s", r1.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("charged for refused work: balance %d", got)
	}
	noKeyLeak(t, log, r, r1)
}

func TestOpenAIFailuresAreGenerationFailed(t *testing.T) {
	log := &syncBuffer{}
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(log, url))
	for _, fault := range []string{string(openaifake.Fail), string(openaifake.Garbage)} {
		fake.Arm(openaifake.Fail, 0)
		fake.Arm(openaifake.Garbage, 0)
		if fault == string(openaifake.Fail) {
			fake.Arm(openaifake.Fail, 2)
		} else {
			fake.Arm(openaifake.Garbage, 2)
		}
		r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Broken backend", "model": "mdl_3", "format": "1:1"})
		if r.Status != 500 || r.code() != "GENERATION_FAILED" || strings.Contains(string(r.Raw), "injected") {
			t.Fatalf("%s v2: %d %s", fault, r.Status, r.Raw)
		}
		r1 := e.post("/v1/thumbnail", map[string]any{"prompt": "Broken backend", "model": "mdl-3", "format": "1:1"})
		if r1.Status != 500 || r1.code() != "INTERNAL_ERROR" {
			t.Fatalf("%s v1: %d %s", fault, r1.Status, r1.Raw)
		}
		noKeyLeak(t, log, r, r1)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("charged for failed work: balance %d", got)
	}
	if !strings.Contains(log.String(), "injected by the fake") {
		t.Error("the backend's own text is not in the log")
	}
}

func TestOpenAIUnreachableIsGenerationFailed(t *testing.T) {
	e := start(t, 1000, withOpenAI(nil, "http://127.0.0.1:1/v1"))
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Nobody home", "model": "mdl_3", "format": "1:1"})
	if r.Status != 500 || r.code() != "GENERATION_FAILED" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("balance %d", got)
	}
	rz := e.do("GET", "/readyz", "", nil)
	if rz.Status != 503 {
		t.Fatalf("readyz with no backend: %d %s", rz.Status, rz.Raw)
	}
}

func TestOpenAITimeoutCancelsBackend(t *testing.T) {
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(nil, url), func(c *app.Config) { c.Timeouts.Generation = 500 * time.Millisecond })
	fake.Arm(openaifake.Hang, 1)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Too slow", "model": "mdl_3", "format": "16:9"})
	if r.Status != 504 || r.code() != "GENERATION_TIMEOUT" {
		t.Fatalf("v2: %d %s", r.Status, r.Raw)
	}
	waitUntil(t, "the backend request to be closed", func() bool { return fake.Stats().Abandoned == 1 && fake.Stats().InFlight == 0 })
	fake.Arm(openaifake.Hang, 1)
	r1 := e.post("/v1/thumbnail", map[string]any{"prompt": "Too slow", "model": "mdl-3"})
	if r1.Status != 500 || r1.code() != "INTERNAL_ERROR" {
		t.Fatalf("v1: %d %s", r1.Status, r1.Raw)
	}
	if got := e.balance(e.Account); got != 1000 {
		t.Fatalf("charged for timed-out work: balance %d", got)
	}
}

func TestOpenAIClientGoneCancelsBackend(t *testing.T) {
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(nil, url))
	fake.Arm(openaifake.Hang, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan response, 1)
	go func() {
		done <- e.doCtx(ctx, "POST", "/v2/thumbnail/text", e.Key, map[string]any{"prompt": "Leaving early", "model": "mdl_3", "format": "16:9"})
	}()
	waitUntil(t, "the backend to receive the request", func() bool { return fake.Stats().InFlight == 1 })
	cancel()
	<-done
	waitUntil(t, "the backend request to be closed", func() bool { return fake.Stats().Abandoned == 1 && fake.Stats().InFlight == 0 })
	waitUntil(t, "the hold to be released", func() bool { return e.balance(e.Account) == 1000 })
}

func TestOpenAIPoolSkipsFailingBackend(t *testing.T) {
	good, goodURL := openaiFake(t, openaifake.Config{})
	bad, badURL := openaiFake(t, openaifake.Config{})
	bad.Arm(openaifake.Down, -1)
	e := start(t, 1000, withOpenAI(nil, badURL, goodURL))
	for i := range 4 {
		r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Pool request", "model": "mdl_3", "format": "1:1"})
		if r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if n := good.Stats().Served; n != 4 {
		t.Fatalf("the good backend served %d of 4", n)
	}
	if n := bad.Count("POST", "/v1/images/generations"); n > 1 {
		t.Fatalf("the failing backend was tried %d times; the pool must skip it", n)
	}
	rz := e.do("GET", "/readyz", "", nil)
	var body struct {
		Status string
		Engine struct {
			Name     string
			Backends []engines.BackendHealth
		}
	}
	if err := json.Unmarshal(rz.Raw, &body); err != nil || rz.Status != 200 || body.Engine.Name != "openai" || len(body.Engine.Backends) != 2 {
		t.Fatalf("readyz: %d %s", rz.Status, rz.Raw)
	}
	if b := body.Engine.Backends; b[0].Healthy || !b[1].Healthy || b[0].URL != badURL || b[0].Reason == "" {
		t.Fatalf("readyz backends: %+v", b)
	}
	metrics := string(e.do("GET", "/metrics", "", nil).Raw)
	for _, want := range []string{
		`thumbforge_engine_requests_total{backend="` + goodURL + `",outcome="ok"} 4`,
		`thumbforge_engine_requests_total{backend="` + badURL + `",outcome="unavailable"}`,
		`thumbforge_engine_backend_up{backend="` + badURL + `"} 0`,
		`thumbforge_engine_in_flight{backend="` + goodURL + `"} 0`,
		`thumbforge_engine_slot_wait_seconds_count`,
		`thumbforge_engine_request_duration_seconds_count{backend="` + goodURL + `"} 4`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The failing backend answers again: the health watch brings it back.
	bad.Arm(openaifake.Down, 0)
	waitUntil(t, "the recovered backend to rejoin", func() bool {
		rz := e.do("GET", "/readyz", "", nil)
		return strings.Count(string(rz.Raw), `"healthy":true`) == 2
	})
	if got := e.balance(e.Account); got != 1000-4*16 {
		t.Fatalf("balance %d", got)
	}
}

func TestOpenAIFaceSwapRunsOnTheBuiltin(t *testing.T) {
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(nil, url))
	target := e.serveImage("/target.jpg", photo(t, "astronaut.jpg"))
	face := e.serveImage("/face.jpg", mirrored(photo(t, "astronaut.jpg")))
	r := e.post("/v2/thumbnail/faceswap", map[string]any{"image_url": target, "face_image": face, "format": "1:1"})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("face swap reached the openai backend (%d requests)", n)
	}
	noFace := e.serveImage("/coffee.jpg", photo(t, "coffee.jpg"))
	r = e.post("/v2/thumbnail/faceswap", map[string]any{"image_url": noFace, "face_image": face, "format": "1:1"})
	if r.Status != 400 || r.code() != "INVALID_IMAGE" {
		t.Fatalf("faceless target: %d %s", r.Status, r.Raw)
	}
}

func TestOpenAIEditWithMask(t *testing.T) {
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(nil, url))
	in := testImage(1280, 720, 90)
	mask := image.NewGray(in.Rect)
	for i := range mask.Pix[:len(mask.Pix)/2] {
		mask.Pix[i] = 255 // the top half is edited
	}
	r := e.post("/v1/edit", map[string]any{"image_url": e.serveImage("/in.jpg", in), "mask_url": e.serveImage("/mask.jpg", mask),
		"prompt": "turn the sky into a sunset"})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	out := e.decodeOutput(r.str("output"))
	if out.Bounds().Size() != (image.Point{1280, 720}) {
		t.Fatalf("size %v", out.Bounds())
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(`name="mask"`)) || !bytes.Contains(reqs[0].Body, []byte(`name="image[]"`)) {
		t.Fatalf("the edit did not go to /images/edits with image[] and mask")
	}
	if got := e.balance(e.Account); got != 1000-12 {
		t.Fatalf("balance %d", got)
	}
}

// waitUntil polls cond; only a bug waits the full minute.
func waitUntil(t *testing.T, what string, cond func() bool) { enginetest.WaitFor(t, what, cond) }

// TestOpenAIPersonaAndStyleGoToTheModel trains a persona and a style, then asks for a
// thumbnail with both: the persona's face crops and the style's references reach the
// backend as image[] parts, the output shows a face, and the price is the thumbnail's.
func TestOpenAIPersonaAndStyleGoToTheModel(t *testing.T) {
	fake, url := openaiFake(t, openaifake.Config{})
	e := start(t, 1000, withOpenAI(nil, url))
	face := photoDataURL(t, "astronaut.jpg")
	persona := e.post("/v2/custom/persona", map[string]any{"name": "Astro", "image_base64s": []string{face, face, face}})
	var styleURLs []string
	for i := range 3 {
		styleURLs = append(styleURLs, e.serveImage("/st"+string(rune('0'+i))+".jpg", testImage(160, 90, uint8(70*i))))
	}
	style := e.post("/v2/custom/style", map[string]any{"name": "Neon", "image_urls": styleURLs})
	for _, r := range []response{persona, style} {
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		seen := e.poll("/v2/custom/"+r.str("id"), e.Key, func(r response) bool { return r.str("status") != "processing" })
		if last := seen[len(seen)-1]; last.str("status") != "completed" {
			t.Fatalf("training: %s", last.Raw)
		}
	}
	before := e.balance(e.Account)
	r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Launch day vlog", "model": "mdl_3", "format": "16:9",
		"persona": persona.str("id"), "style": style.str("id")})
	if r.Status != 200 {
		t.Fatalf("thumbnail: %d %s", r.Status, r.Raw)
	}
	if len(enginetest.Detector(t).Detect(e.decodeOutput(r.str("output")))) == 0 {
		t.Error("no face in the persona thumbnail")
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Path != "/v1/images/edits" || bytes.Count(last.Body, []byte(`name="image[]"`)) != 3+3 ||
		!bytes.Contains(last.Body, []byte("Launch day vlog")) || !bytes.Contains(last.Body, []byte("style reference images")) {
		t.Fatalf("the request did not carry 3 face crops and 3 style references: %s %d parts", last.Path, bytes.Count(last.Body, []byte(`name="image[]"`)))
	}
	if got := before - e.balance(e.Account); got != 16 {
		t.Fatalf("charged %d, want 16", got)
	}
}
