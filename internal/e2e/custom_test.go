package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// trainingPrice is the default price of persona and style training.
const trainingPrice = 38

// photoBytes returns a test photograph from the faces package (astronaut.jpg has one face).
func photoBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "faces", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func photoDataURL(t testing.TB, name string) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photoBytes(t, name))
}

// zipOf builds a zip archive of name/content pairs, in order.
func zipOf(t testing.TB, files ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: files[i].(string), Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(files[i+1].([]byte)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveBytes makes the image server answer path with data.
func (e *env) serveBytes(path string, data []byte) string {
	return e.serve(path, func(w http.ResponseWriter, r *http.Request) { w.Write(data) })
}

// poll GETs path until done says so, failing after a generous bound; it returns every
// response seen.
func (e *env) poll(path, key string, done func(response) bool) []response {
	e.t.Helper()
	var seen []response
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := e.do("GET", path, key, nil)
		seen = append(seen, r)
		if done(r) {
			return seen
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("GET %s never finished; last: %d %s", path, r.Status, r.Raw)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

func num(r response, field string) int {
	f, _ := r.Body[field].(float64)
	return int(f)
}

// checkRising fails unless progress never goes down across the responses.
func checkRising(t *testing.T, seen []response) {
	t.Helper()
	last := -1
	for _, r := range seen {
		if p := num(r, "progress"); p < last {
			t.Fatalf("progress went from %d down to %d", last, p)
		} else {
			last = p
		}
	}
}

func TestV1PersonaLifecycle(t *testing.T) {
	e := start(t, 100)
	face := photoBytes(t, "astronaut.jpg")
	url := e.serveBytes("/persona.zip", zipOf(t,
		"__MACOSX/._a.jpg", face, "notes.txt", []byte("hi"), "pics/a.jpg", face, "pics/b.jpg", photoBytes(t, "coffee.jpg")))
	r := e.post("/v1/persona", map[string]any{"name": "Eileen", "training_data": url})
	if r.Status != 200 || r.str("status") != "queued" || r.str("id") == "" {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.str("id")
	if b := e.balance(e.Account); b != 100-trainingPrice {
		t.Fatalf("balance %d after creation, want the price held", b)
	}
	seen := e.poll("/v1/persona?id="+id, e.Key, func(r response) bool { return r.str("status") == "Ready" })
	checkRising(t, seen)
	for _, r := range seen {
		if s := r.str("status"); s != "Queued" && s != "Analyzing" && s != "Training" && s != "Ready" {
			t.Fatalf("v1 status %q", s)
		}
	}
	last := seen[len(seen)-1]
	if num(last, "progress") != 100 || last.str("name") != "Eileen" || last.str("id") != id {
		t.Fatalf("ready record %s", last.Raw)
	}
	if created := int64(num(last, "created")); created < time.Now().Add(-time.Hour).Unix() || created > time.Now().Add(time.Hour).Unix() {
		t.Fatalf("created %d is not epoch seconds of now", created)
	}
	portrait := e.decodeOutput(last.str("temp_portrait_url"))
	if portrait.Bounds().Dx() < 64 {
		t.Fatalf("portrait %v", portrait.Bounds())
	}
	if b := e.balance(e.Account); b != 100-trainingPrice {
		t.Fatalf("balance %d after training, want the price charged once", b)
	}
	// The same record through v2: completed, two references (the zip's two images).
	v2 := e.do("GET", "/v2/custom/"+id, e.Key, nil)
	if v2.str("status") != "completed" || v2.str("mode") != "persona" || v2.str("portrait_url") == "" {
		t.Fatalf("v2 view %s", v2.Raw)
	}
	if refs, _ := v2.Body["reference"].([]any); len(refs) != 2 {
		t.Fatalf("references %v, want 2", v2.Body["reference"])
	}
	// A persona is not a style.
	if r := e.do("GET", "/v1/style?id="+id, e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
		t.Fatalf("persona read as style: %d %s", r.Status, r.Raw)
	}
	// The persona can be used, and its face appears in the output.
	if r := e.post("/v1/thumbnail", map[string]any{"prompt": "Space walk", "persona": id}); r.Status != 200 {
		t.Fatalf("thumbnail with persona: %d %s", r.Status, r.Raw)
	}
	// temp_portrait_url lives 12 hours after training completes.
	e.Clock.Advance(13 * time.Hour)
	if r := e.do("GET", "/v1/persona?id="+id, e.Key, nil); r.Status != 200 || r.Body["temp_portrait_url"] != nil {
		t.Fatalf("after 13 h: %d %s", r.Status, r.Raw)
	}
}

func TestV1StyleKeepsFirstThreeImages(t *testing.T) {
	e := start(t, 100)
	var files []any
	for i := range 5 {
		files = append(files, "img"+string(rune('a'+i))+".jpg", jpegBytes(t, testImage(96, 64, uint8(40*i))))
	}
	url := e.serveBytes("/style.zip", zipOf(t, files...))
	r := e.post("/v1/style", map[string]any{"name": "Gradients", "training_data": url})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.str("id")
	e.poll("/v1/style?id="+id, e.Key, func(r response) bool { return r.str("status") == "Ready" })
	v2 := e.do("GET", "/v2/custom/"+id, e.Key, nil)
	if refs, _ := v2.Body["reference"].([]any); len(refs) != 3 {
		t.Fatalf("references %v, want the first 3 images", v2.Body["reference"])
	}
	if r := e.post("/v1/thumbnail", map[string]any{"prompt": "Colour test", "style": id}); r.Status != 200 {
		t.Fatalf("thumbnail with style: %d %s", r.Status, r.Raw)
	}
}

func TestV1TrainingDataErrors(t *testing.T) {
	e := start(t, 100)
	face := photoBytes(t, "astronaut.jpg")
	bomb := append(append([]byte{}, face[:8]...), make([]byte, 30<<20)...) // JPEG magic, then 30 MB of zeros
	for _, tc := range []struct {
		name, path string
		body       []byte // nil: 404
		mode       string
		reason     string
	}{
		{"inaccessible", "/missing.zip", nil, "persona", "could not be downloaded"},
		{"not a zip", "/text.zip", []byte("this is not a zip archive"), "style", "not a valid zip"},
		{"no images", "/txt-only.zip", zipOf(t, "a.txt", []byte("x"), "b.gif", []byte("GIF89a")), "style", "no PNG or JPEG"},
		{"bomb", "/bomb.zip", zipOf(t, "bomb.jpg", bomb), "style", "larger than 8 MB"},
		{"traversal only", "/evil.zip", zipOf(t, "../evil.jpg", face, "/etc/x.jpg", face), "persona", "no PNG or JPEG"},
		{"faceless persona", "/coffee.zip", zipOf(t, "coffee.jpg", photoBytes(t, "coffee.jpg"), "cat.jpg", photoBytes(t, "chelsea.jpg")), "persona", "no face"},
		{"corrupt image", "/corrupt.zip", zipOf(t, "half.jpg", face[:len(face)/3]), "style", "not a readable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := e.Images.URL + tc.path
			if tc.body != nil {
				url = e.serveBytes(tc.path, tc.body)
			}
			r := e.post("/v1/"+tc.mode, map[string]any{"name": "Try " + tc.name, "training_data": url})
			errObj, _ := r.Body["error"].(map[string]any)
			details, _ := errObj["details"].(string)
			if r.Status != 400 || r.code() != "INVALID_TRAINING_DATA" || !strings.Contains(details, tc.reason) {
				t.Fatalf("%d %s, want 400 INVALID_TRAINING_DATA mentioning %q", r.Status, r.Raw, tc.reason)
			}
		})
	}
	if b := e.balance(e.Account); b != 100 {
		t.Fatalf("balance %d: rejected training data must not cost anything", b)
	}
	for _, tc := range []struct {
		name string
		body any
		code string
	}{
		{"missing name", map[string]any{"training_data": "https://example.com/a.zip"}, "BAD_REQUEST"},
		{"long name", map[string]any{"name": strings.Repeat("n", 26), "training_data": "https://example.com/a.zip"}, "BAD_REQUEST"},
		{"missing data", map[string]any{"name": "x"}, "BAD_REQUEST"},
		{"not a URL", map[string]any{"name": "x", "training_data": "ftp://example.com/a.zip"}, "BAD_REQUEST"},
		{"reserved", map[string]any{"name": "default", "training_data": "https://example.com/a.zip"}, "BAD_REQUEST"},
	} {
		r := e.post("/v1/persona", tc.body)
		if r.Status != 400 || r.code() != tc.code {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	for _, q := range []string{"?id=0190b1e0-0000-7000-8000-000000000000", "?id=nonsense"} {
		if r := e.do("GET", "/v1/persona"+q, e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Errorf("GET %s: %d %s", q, r.Status, r.Raw)
		}
	}
	if r := e.do("GET", "/v1/style", e.Key, nil); r.Status != 400 || r.code() != "BAD_REQUEST" {
		t.Errorf("GET without id: %d %s", r.Status, r.Raw)
	}
	if r := e.do("POST", "/v1/style", "", map[string]any{"name": "x"}); r.Status != 401 || r.code() != "INVALID_AUTH_HEADER" {
		t.Errorf("no key: %d %s", r.Status, r.Raw)
	}
}

func TestV2StyleLifecycle(t *testing.T) {
	e := start(t, 100)
	var urls []string
	for i := range 3 {
		urls = append(urls, e.serveImage("/s"+string(rune('0'+i))+".jpg", testImage(160, 90, uint8(60*i))))
	}
	r := e.post("/v2/custom/style", map[string]any{"name": "Warm glow", "image_urls": urls})
	if r.Status != 200 || r.str("id") == "" || r.str("request_id") == "" {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.str("id")
	seen := e.poll("/v2/custom/"+id, e.Key, func(r response) bool { return r.str("status") != "processing" })
	checkRising(t, seen)
	for _, r := range seen[:len(seen)-1] {
		if r.Body["portrait_url"] != nil || r.Body["reference"] != nil {
			t.Fatalf("portrait or reference before completion: %s", r.Raw)
		}
	}
	done := seen[len(seen)-1]
	if done.str("status") != "completed" || num(done, "progress") != 100 || done.str("mode") != "style" || done.str("name") != "Warm glow" {
		t.Fatalf("completed record %s", done.Raw)
	}
	portrait := done.str("portrait_url")
	e.decodeOutput(portrait)
	refs, _ := done.Body["reference"].([]any)
	if len(refs) != 3 {
		t.Fatalf("reference %v", done.Body["reference"])
	}
	for _, u := range refs {
		e.decodeOutput(u.(string))
	}
	if b := e.balance(e.Account); b != 100-trainingPrice {
		t.Fatalf("balance %d, want training charged", b)
	}
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Sunset ride", "model": "mdl_3", "format": "16:9", "style": id}); r.Status != 200 {
		t.Fatalf("thumbnail with style: %d %s", r.Status, r.Raw)
	}
	// special_instructions: set, read back, bounded.
	r = e.do("PATCH", "/v2/custom/"+id, e.Key, map[string]any{"special_instructions": "Keep it moody"})
	if r.Status != 200 || r.str("special_instructions") != "Keep it moody" {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := e.do("GET", "/v2/custom/"+id, e.Key, nil); r.str("special_instructions") != "Keep it moody" {
		t.Fatalf("instructions not kept: %s", r.Raw)
	}
	for _, body := range []any{
		map[string]any{"special_instructions": strings.Repeat("x", 301)},
		map[string]any{},
		map[string]any{"special_instructions": "ok", "extra": 1},
	} {
		if r := e.do("PATCH", "/v2/custom/"+id, e.Key, body); r.Status != 400 || r.code() != "VALIDATION_ERROR" {
			t.Fatalf("bad patch %v: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := e.do("PATCH", "/v2/custom/"+id, e.Key, map[string]any{"special_instructions": strings.Repeat("é", 300)}); r.Status != 200 {
		t.Fatalf("300 characters refused: %d %s", r.Status, r.Raw)
	}
	// Delete removes the record and its files.
	r = e.do("DELETE", "/v2/custom/"+id, e.Key, nil)
	if r.Status != 200 || r.str("message") == "" {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if status, _, _ := e.fetch(portrait); status != 404 {
		t.Fatalf("portrait still served after delete: %d", status)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if r := e.do(m, "/v2/custom/"+id, e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Fatalf("%s after delete: %d %s", m, r.Status, r.Raw)
		}
	}
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1", "style": id}); r.code() != "INVALID_STYLE" {
		t.Fatalf("deleted style used: %d %s", r.Status, r.Raw)
	}
}

func TestV2PersonaFromDataURLs(t *testing.T) {
	e := start(t, 100)
	face := photoDataURL(t, "astronaut.jpg")
	r := e.post("/v2/custom/persona", map[string]any{"name": "Astro", "image_base64s": []string{face, face, face}})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.str("id")
	done := e.poll("/v2/custom/"+id, e.Key, func(r response) bool { return r.str("status") != "processing" })
	if last := done[len(done)-1]; last.str("status") != "completed" {
		t.Fatalf("persona: %s", last.Raw)
	}
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "Launch day", "model": "mdl_4_5", "format": "16:9", "persona": id}); r.Status != 200 {
		t.Fatalf("thumbnail with persona: %d %s", r.Status, r.Raw)
	}
	// A persona id is not a style id.
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1", "style": id}); r.code() != "INVALID_STYLE" {
		t.Fatalf("persona used as style: %d %s", r.Status, r.Raw)
	}
}

func TestV2FailedTrainingIsNotCharged(t *testing.T) {
	e := start(t, 100)
	good := e.serveImage("/ok.jpg", testImage(64, 64, 1))
	r := e.post("/v2/custom/style", map[string]any{"name": "Broken", "image_urls": []string{good, e.Images.URL + "/gone.jpg", good}})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.str("id")
	seen := e.poll("/v2/custom/"+id, e.Key, func(r response) bool { return r.str("status") != "processing" })
	if last := seen[len(seen)-1]; last.str("status") != "failed" || last.Body["portrait_url"] != nil {
		t.Fatalf("record %s, want failed", last.Raw)
	}
	if b := e.balance(e.Account); b != 100 {
		t.Fatalf("balance %d, want the hold released", b)
	}
	// A failed record reads as NOT_FOUND in v1, and gives its name up.
	if r := e.do("GET", "/v1/style?id="+id, e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
		t.Fatalf("v1 read of a failed record: %d %s", r.Status, r.Raw)
	}
	if r := e.post("/v2/custom/style", map[string]any{"name": "Broken", "image_urls": []string{good, good, good}}); r.Status != 200 {
		t.Fatalf("name of a failed record not reusable: %d %s", r.Status, r.Raw)
	}
	// Faceless persona images also end in failed.
	cat := photoDataURL(t, "chelsea.jpg")
	r = e.post("/v2/custom/persona", map[string]any{"name": "Cat", "image_base64s": []string{cat, cat, cat}})
	seen = e.poll("/v2/custom/"+r.str("id"), e.Key, func(r response) bool { return r.str("status") != "processing" })
	if last := seen[len(seen)-1]; last.str("status") != "failed" {
		t.Fatalf("faceless persona: %s", last.Raw)
	}
}

func TestV2CustomValidation(t *testing.T) {
	e := start(t, 1000)
	u := e.serveImage("/v.jpg", testImage(64, 64, 2))
	three := []string{u, u, u}
	d := dataURL(t, testImage(32, 32, 3))
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"missing name", map[string]any{"image_urls": three}, "name"},
		{"empty name", map[string]any{"name": "", "image_urls": three}, "name"},
		{"long name", map[string]any{"name": strings.Repeat("a", 26), "image_urls": three}, "name"},
		{"bad characters", map[string]any{"name": "semi;colon", "image_urls": three}, "name"},
		{"no images", map[string]any{"name": "x"}, "image_urls"},
		{"both lists", map[string]any{"name": "x", "image_urls": three, "image_base64s": []string{d, d, d}}, "image_urls"},
		{"two images", map[string]any{"name": "x", "image_urls": three[:2]}, "image_urls"},
		{"four images", map[string]any{"name": "x", "image_base64s": []string{d, d, d, d}}, "image_base64s"},
		{"http URL", map[string]any{"name": "x", "image_urls": []string{u, "http://example.com/a.jpg", u}}, "image_urls[1]"},
		{"bad data URL", map[string]any{"name": "x", "image_base64s": []string{d, "data:text/plain;base64,AA==", d}}, "image_base64s[1]"},
		{"not strings", map[string]any{"name": "x", "image_urls": []int{1, 2, 3}}, "image_urls"},
		{"unknown property", map[string]any{"name": "x", "image_urls": three, "colour": "red"}, "colour"},
	} {
		r := e.post("/v2/custom/style", tc.body)
		if r.Status != 400 || r.code() != "VALIDATION_ERROR" || !strings.Contains(string(r.Raw), `"field":"`+tc.field+`"`) {
			t.Errorf("%s: %d %s, want VALIDATION_ERROR on %s", tc.name, r.Status, r.Raw, tc.field)
		}
	}
	// Look-alikes of reserved names are reserved: full-width, dotless and dotted i.
	for _, name := range []string{"None", "ａｄｍｉｎ", "Admın", "ADMİN"} {
		if r := e.post("/v2/custom/style", map[string]any{"name": name, "image_urls": three}); r.Status != 409 || r.code() != "NAME_RESERVED" {
			t.Errorf("reserved %q: %d %s", name, r.Status, r.Raw)
		}
	}
	if r := e.post("/v2/custom/style", map[string]any{"name": "Twice", "image_urls": three}); r.Status != 200 {
		t.Fatalf("first: %d %s", r.Status, r.Raw)
	}
	if r := e.post("/v2/custom/style", map[string]any{"name": "Twice", "image_base64s": []string{d, d, d}}); r.Status != 409 || r.code() != "NAME_ALREADY_EXISTS" {
		t.Errorf("duplicate: %d %s", r.Status, r.Raw)
	}
	for _, name := range []string{"TWICE", "Ｔｗｉｃｅ", "Twiсe" /* Cyrillic с */} {
		if r := e.post("/v2/custom/style", map[string]any{"name": name, "image_urls": three}); r.Status != 409 || r.code() != "NAME_ALREADY_EXISTS" {
			t.Errorf("look-alike duplicate %q: %d %s", name, r.Status, r.Raw)
		}
	}
	if r := e.post("/v2/custom/persona", map[string]any{"name": "Twice", "image_base64s": []string{d, d, d}}); r.Status != 200 {
		t.Errorf("same name, other mode: %d %s", r.Status, r.Raw)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if r := e.do(m, "/v2/custom/not-a-uuid", e.Key, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Errorf("%s malformed id: %d %s", m, r.Status, r.Raw)
		}
	}
	if r := e.do("PUT", "/v2/custom/style", e.Key, nil); r.Status != 404 {
		t.Errorf("PUT: %d %s", r.Status, r.Raw)
	}
	if r := e.do("POST", "/v2/custom/other", e.Key, map[string]any{}); r.Status != 404 || r.code() != "NOT_FOUND" {
		t.Errorf("POST unknown kind: %d %s", r.Status, r.Raw)
	}
	if r := e.do("GET", "/v2/custom/0190b1e0-0000-7000-8000-000000000000", "", nil); r.Status != 401 || r.code() != "MISSING_API_KEY" {
		t.Errorf("no key: %d %s", r.Status, r.Raw)
	}
}

func TestCustomOwnershipAndCredits(t *testing.T) {
	e := start(t, 100)
	u := e.serveImage("/o.jpg", testImage(64, 64, 4))
	r := e.post("/v2/custom/style", map[string]any{"name": "Mine", "image_urls": []string{u, u, u}})
	id := r.str("id")
	e.poll("/v2/custom/"+id, e.Key, func(r response) bool { return r.str("status") == "completed" })
	_, other := e.newAccount(100)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/v2/custom/" + id}, {"DELETE", "/v2/custom/" + id}, {"GET", "/v1/style?id=" + id},
	} {
		if r := e.do(tc.method, tc.path, other, nil); r.Status != 404 || r.code() != "NOT_FOUND" {
			t.Errorf("other account %s %s: %d %s", tc.method, tc.path, r.Status, r.Raw)
		}
	}
	if r := e.do("PATCH", "/v2/custom/"+id, other, map[string]any{"special_instructions": "x"}); r.Status != 404 {
		t.Errorf("other account PATCH: %d %s", r.Status, r.Raw)
	}
	if r := e.do("POST", "/v2/thumbnail/text", other, map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1", "style": id}); r.code() != "INVALID_STYLE" {
		t.Errorf("other account uses style: %d %s", r.Status, r.Raw)
	}
	_, poor := e.newAccount(10)
	if r := e.do("POST", "/v2/custom/style", poor, map[string]any{"name": "Poor", "image_urls": []string{u, u, u}}); r.Status != 402 || r.code() != "INSUFFICIENT_CREDITS" {
		t.Errorf("v2 without credits: %d %s", r.Status, r.Raw)
	}
	zipURL := e.serveBytes("/p.zip", zipOf(t, "a.jpg", jpegBytes(t, testImage(64, 64, 5))))
	if r := e.do("POST", "/v1/style", poor, map[string]any{"name": "Poor", "training_data": zipURL}); r.Status != 402 || r.code() != "INSUFFICIENT_BALANCE" {
		t.Errorf("v1 without credits: %d %s", r.Status, r.Raw)
	}
}

// TestDeleteWhileProcessing slows training down so the record is still processing.
func TestDeleteWhileProcessing(t *testing.T) {
	t.Setenv(app.TrainingDelayEnv, "1s")
	e := start(t, 100)
	u := e.serveImage("/p.jpg", testImage(64, 64, 6))
	r := e.post("/v2/custom/style", map[string]any{"name": "Slow", "image_urls": []string{u, u, u}})
	id := r.str("id")
	if r := e.do("DELETE", "/v2/custom/"+id, e.Key, nil); r.Status != 400 || r.code() != string(core.CodeCannotDeleteProc) {
		t.Fatalf("delete while processing: %d %s", r.Status, r.Raw)
	}
	if r := e.post("/v2/thumbnail/text", map[string]any{"prompt": "x", "model": "mdl_3", "format": "1:1", "style": id}); r.code() != "INVALID_STYLE" {
		t.Fatalf("unfinished style used: %d %s", r.Status, r.Raw)
	}
	e.poll("/v2/custom/"+id, e.Key, func(r response) bool { return r.str("status") == "completed" })
	if r := e.do("DELETE", "/v2/custom/"+id, e.Key, nil); r.Status != 200 {
		t.Fatalf("delete after training: %d %s", r.Status, r.Raw)
	}
}

// TestV1TwentyImagePersona reports how long a 20-image persona takes over HTTP: creation
// (download and check the zip) and training until Ready. Only the result is asserted.
func TestV1TwentyImagePersona(t *testing.T) {
	e := start(t, 100)
	face := photoBytes(t, "astronaut.jpg")
	var files []any
	for i := range 20 {
		files = append(files, fmt.Sprintf("face-%02d.jpg", i), face)
	}
	url := e.serveBytes("/twenty.zip", zipOf(t, files...))
	begin := time.Now()
	r := e.post("/v1/persona", map[string]any{"name": "Twenty", "training_data": url})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	created := time.Since(begin)
	e.poll("/v1/persona?id="+r.str("id"), e.Key, func(r response) bool { return r.str("status") == "Ready" })
	t.Logf("20-image persona: created in %v, Ready after %v", created, time.Since(begin))
	v2 := e.do("GET", "/v2/custom/"+r.str("id"), e.Key, nil)
	if refs, _ := v2.Body["reference"].([]any); len(refs) != 20 {
		t.Fatalf("references %d, want 20", len(refs))
	}
}
