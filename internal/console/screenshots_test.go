package console_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"thumbforge/internal/app"
	"thumbforge/internal/app/apptest"
)

var update = flag.Bool("update", false, "rewrite the screenshots in docs/console")

// sizes are the two widths every page is checked and pictured at: a laptop and a phone.
var sizes = []struct {
	name          string
	width, height int64
}{{"1280", 1280, 800}, {"390", 390, 844}}

// shot is one page to picture: where it is, what shows it is ready, and what to do first.
type shot struct {
	name, path, ready string
	act               func(tb *tab)
}

// unnamed lists the shown controls that a screen reader could not name: fields without a
// label, buttons and links without text, images without alt.
const unnamed = `(() => {
  const bad = [];
  const shown = (e) => !e.closest('[hidden]');
  for (const e of document.querySelectorAll('input, select, textarea')) {
    if (shown(e) && !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')) bad.push(e.outerHTML.slice(0, 90));
  }
  for (const e of document.querySelectorAll('button, a[href]')) {
    if (shown(e) && !e.textContent.trim() && !e.getAttribute('aria-label')) bad.push(e.outerHTML.slice(0, 90));
  }
  for (const e of document.querySelectorAll('img')) if (!e.hasAttribute('alt')) bad.push(e.outerHTML.slice(0, 90));
  return bad;
})()`

// TestScreenshots opens every page at both sizes on a site with some history, checks that
// nothing overflows sideways (a phone would have to scroll) and, with -update, writes the
// pictures to docs/console:
//
//	go test ./internal/console -run TestScreenshots -update
func TestScreenshots(t *testing.T) {
	clock := &apptest.Clock{}
	s := startSite(t, 3000, func(c *app.Config) { c.Now = clock.Now })
	if *update {
		s.history(t, clock)
	}
	s.seed(t)
	tok := s.adminToken(t)
	shots := []shot{
		{name: "signin", path: "/", ready: `!document.getElementById('signin').hidden`},
		{name: "generate", path: "/", ready: `document.querySelector('#persona option[value]:not([value=""])') !== null`, act: func(tb *tab) {
			prompt := map[int64]string{1280: "Ten budget travel tips for Japan", 390: "Ten plants that survive any flat"}[eval[int64](tb, `window.innerWidth`)]
			tb.do(chromedp.SetValue(chromedp.ID("prompt"), prompt), chromedp.Click(chromedp.ID("generate")))
			tb.until("the thumbnail", `document.getElementById('result-img').dataset.loaded === 'true'`)
		}},
		{name: "history", path: "/history", ready: `document.querySelectorAll('#history img').length > 0 && document.querySelector('#history img').complete`},
		{name: "personas", path: "/personas", ready: `document.querySelectorAll('.tile img').length >= 2 && document.querySelector('.tile img').complete`},
		{name: "titles", path: "/titles", act: func(tb *tab) {
			tb.do(chromedp.SetValue(chromedp.ID("prompt"), "A week cycling the Danube on a budget, from Passau to Vienna"), chromedp.Click(chromedp.ID("suggest")))
			tb.until("the titles", `document.querySelectorAll('#titles li').length === 5`)
			tb.do(chromedp.Click(chromedp.CSS(`#titles li button`)))
			tb.until("copied", `document.querySelector('#titles li button').textContent === 'Copied'`)
			tb.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#titles li button').textContent = 'Copy'`))
		}},
		{name: "score", path: "/score", act: func(tb *tab) {
			tb.do(chromedp.SetUploadFiles(chromedp.ID("image-file"), []string{s.sample}))
			tb.until("the preview", `!document.querySelector('#image .preview').hidden`)
			tb.do(chromedp.Click(chromedp.ID("score")))
			tb.until("the score", `!document.getElementById('score-result').hidden`)
			if n := eval[int](tb, `document.querySelectorAll('#criteria [role="meter"][aria-valuenow]').length`); n < 3 {
				t.Fatalf("score shows %d criterion bars", n)
			}
		}},
		{name: "account", path: "/account", ready: `document.querySelectorAll('#usage-chart rect').length > 0 && document.querySelectorAll('#ledger tbody tr').length > 1`},
		{name: "admin", path: "/admin", ready: `document.querySelectorAll('#accounts .acct').length > 0 && document.querySelectorAll('#health li').length > 0`},
	}
	dir := filepath.Join("..", "..", "docs", "console")
	for _, size := range sizes {
		tb := newTab(t, size.width, size.height)
		signedIn := ""
		for _, sh := range shots {
			switch {
			case sh.name == "signin":
				tb.open(s, sh.path)
			case sh.name == "admin":
				tb.signIn(s, sh.path, tok)
			case signedIn == "":
				tb.signIn(s, sh.path, s.Key)
				signedIn = s.Key
			default:
				tb.open(s, sh.path)
			}
			if sh.ready != "" {
				tb.until(sh.name+" ready", sh.ready)
			}
			if sh.act != nil {
				sh.act(tb)
			}
			if bad := eval[[]string](tb, unnamed); len(bad) > 0 {
				t.Errorf("%s at %dpx: controls without an accessible name: %q", sh.name, size.width, bad)
			}
			if over := eval[int](tb, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
				t.Errorf("%s at %dpx: the page is %dpx wider than the window", sh.name, size.width, over)
			}
			if !*update {
				continue
			}
			tb.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()`))
			shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.DecodeConfig(bytes.NewReader(shot)); err != nil {
				t.Fatalf("%s: not a PNG: %v", sh.name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s.png", sh.name, size.name)), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// history spends credits on each of the last three weeks' days, for the usage chart.
func (s *site) history(t *testing.T, c *apptest.Clock) {
	t.Helper()
	calls := []struct {
		path string
		body map[string]any
	}{
		{"/v2/thumbnail/text", map[string]any{"prompt": "Budget travel", "model": "mdl_4_5", "format": "16:9"}},
		{"/v2/title/text", map[string]any{"prompt": "Budget travel in Japan"}},
		{"/v2/thumbnail/text", map[string]any{"prompt": "Gaming setup", "model": "mdl_3", "format": "1:1"}},
		{"/v2/thumbnail/text", map[string]any{"prompt": "Ocean life", "model": "mdl_4_5", "format": "9:16"}},
	}
	for day := 21; day >= 1; day-- {
		c.Set(-time.Duration(day) * 24 * time.Hour)
		for i := range (day*5)%4 + 1 {
			call := calls[(day+i)%len(calls)]
			if code, body := s.call(t, "POST", call.path, call.body); code != 200 {
				t.Fatalf("history day %d: %d %s", day, code, body)
			}
		}
	}
	c.Set(0)
}

// seed gives the account some history through the API: thumbnails, a style and a persona.
func (s *site) seed(t *testing.T) {
	t.Helper()
	s.sample = writeJPEG(t, sampleImage(1280, 720, 40))
	for i, p := range []map[string]any{
		{"prompt": "Ten budget travel tips for Japan", "model": "mdl_4_5", "format": "16:9"},
		{"prompt": "Deep sea creatures you never knew existed", "model": "mdl_3", "format": "16:9"},
		{"prompt": "Fastest gaming setup of 2026", "model": "mdl_3", "format": "1:1"},
		{"prompt": "Morning workout for busy people", "model": "mdl_2", "format": "9:16"},
	} {
		if code, body := s.call(t, "POST", "/v2/thumbnail/text", p); code != 200 {
			t.Fatalf("seed thumbnail %d: %d %s", i, code, body)
		}
	}
	face := dataURLFile(t, filepath.Join("..", "faces", "testdata", "astronaut.jpg"))
	for _, c := range []struct {
		mode, name string
		images     []string
	}{
		{"style", "Warm sunset", []string{dataURL(t, sampleImage(640, 480, 200)), dataURL(t, sampleImage(640, 480, 180)), dataURL(t, sampleImage(640, 480, 220))}},
		{"persona", "Astronaut", []string{face, face, face}},
	} {
		code, body := s.call(t, "POST", "/v2/custom/"+c.mode, map[string]any{"name": c.name, "image_base64s": c.images})
		if code != 200 {
			t.Fatalf("seed %s: %d %s", c.mode, code, body)
		}
		var created struct{ ID string }
		_ = json.Unmarshal(body, &created)
		s.waitTrained(t, created.ID)
	}
}

// waitTrained polls a record until its training ends.
func (s *site) waitTrained(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		_, body := s.call(t, "GET", "/v2/custom/"+id, nil)
		var r struct{ Status string }
		_ = json.Unmarshal(body, &r)
		switch r.Status {
		case "completed":
			return
		case "failed":
			t.Fatalf("training %s failed", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("training %s did not end", id)
}

// call sends a JSON request with the site's key and returns the status and body.
func (s *site) call(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", s.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp.StatusCode, out.Bytes()
}
