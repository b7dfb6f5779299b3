package console_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
)

// pick checks a radio button the way a click on its label does.
func (tb *tab) pick(name, value string) {
	tb.t.Helper()
	tb.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('input[name="` + name + `"][value="` + value + `"]').click()`))
}

func TestBrowserGenerate(t *testing.T) {
	s := startSite(t, 500)
	tb := newTab(t, 1280, 800)
	tb.signIn(s, "/", s.Key)
	if eval[string](tb, `sessionStorage.getItem('thumbforge.apiKey')`) != s.Key || eval[string](tb, `document.cookie`) != "" ||
		strings.Contains(eval[string](tb, `location.href`), s.Key) {
		t.Fatal("the key is not kept in sessionStorage only")
	}
	tb.until("the balance in the top bar", `document.getElementById('who-balance').textContent === '500 credits'`)

	// A text thumbnail: the image loads, at the format's size, with its cost.
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "Ten budget travel tips for Japan"), chromedp.Click(chromedp.ID("generate")))
	tb.until("the thumbnail", `document.getElementById('result-img').dataset.loaded === 'true'`)
	if w := eval[int](tb, `document.getElementById('result-img').naturalWidth`); w != 1280 {
		t.Fatalf("thumbnail width %d, want 1280", w)
	}
	if cost := tb.text("#result-cost"); cost != "13 credits" {
		t.Fatalf("cost %q", cost)
	}
	first := eval[string](tb, `document.getElementById('result-img').src`)
	if eval[string](tb, `document.getElementById('result-download').href`) != first {
		t.Fatal("the download button does not point at the image")
	}
	tb.until("the new balance", `document.getElementById('result-balance').textContent === '487 credits'`)

	// The API's validation error shows next to its field, which gets the focus.
	tb.do(chromedp.SetValue(chromedp.ID("prompt"), "see https://example.com"), chromedp.Click(chromedp.ID("generate")))
	tb.until("the prompt's error", `!document.getElementById('prompt-error').hidden`)
	if msg := tb.text("#prompt-error"); !strings.Contains(msg, "links") ||
		!eval[bool](tb, `document.getElementById('prompt').getAttribute('aria-invalid') === 'true' && document.activeElement.id === 'prompt'`) {
		t.Fatalf("prompt error %q not next to a focused, marked field", msg)
	}

	// A file that is no image is refused before anything is sent.
	tb.pick("op", "reference")
	junk := filepath.Join(t.TempDir(), "notes.jpg")
	if err := os.WriteFile(junk, []byte("not an image at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.SetUploadFiles(chromedp.ID("image-file"), []string{junk}))
	tb.until("the file's error", `!document.getElementById('image-error').hidden`)
	if msg := tb.text("#image-error"); !strings.Contains(msg, "not a JPEG, PNG, WebP or GIF") {
		t.Fatalf("junk upload: %q", msg)
	}

	// A reference image uploaded: a new thumbnail made from it.
	s.sample = writeJPEG(t, sampleImage(1024, 768, 90))
	tb.do(chromedp.SetUploadFiles(chromedp.ID("image-file"), []string{s.sample}))
	tb.until("the preview", `!document.querySelector('#image .preview').hidden && document.getElementById('image-error').hidden`)
	tb.do(chromedp.SetValue(chromedp.ID("model"), "mdl_3"), chromedp.SetValue(chromedp.ID("prompt"), "Our trip to Kyoto"),
		chromedp.Click(chromedp.ID("generate")))
	tb.until("the second thumbnail", `document.getElementById('result-img').dataset.loaded === 'true' && document.getElementById('result-img').src !== `+jsString(first))
	if cost := tb.text("#result-cost"); cost != "16 credits" {
		t.Fatalf("mdl_3 cost %q", cost)
	}

	// Recreate: the same image restyled by mdl_2, staying close to it.
	tb.pick("op", "recreate")
	tb.pick("image_weight", "high")
	second := eval[string](tb, `document.getElementById('result-img').src`)
	tb.do(chromedp.Click(chromedp.ID("generate")))
	tb.until("the recreation", `document.getElementById('result-img').dataset.loaded === 'true' && document.getElementById('result-img').src !== `+jsString(second))
	if cost := tb.text("#result-cost"); cost != "20 credits" {
		t.Fatalf("recreate cost %q", cost)
	}

	// History shows all three; the account page charts the day's usage.
	tb.open(s, "/history")
	tb.until("the history", `document.querySelectorAll('#history .tile').length === 3`)
	tb.open(s, "/account")
	tb.until("the usage chart", `['thumbnail.mdl_4_5', 'thumbnail.mdl_3', 'thumbnail.mdl_2'].every((op) => document.querySelectorAll('#usage-chart rect[data-op="' + op + '"]').length === 1)`)
	tb.until("the ledger", `document.querySelectorAll('#ledger tbody tr').length >= 5`)
	if got := tb.text("#acct-balance"); got != "451 credits" {
		t.Fatalf("balance %q", got)
	}

	// A key deactivated meanwhile signs the tab out, saying why.
	p, _, err := s.App.Store.KeyByHash(context.Background(), core.HashKey(s.Key))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.App.Store.SetKeyStatus(context.Background(), p.ID, core.KeyInactive); err != nil {
		t.Fatal(err)
	}
	tb.open(s, "/history")
	tb.until("signed out", `!document.getElementById('signin').hidden && !document.getElementById('signin-secret-error').hidden`)
	if msg := tb.text("#signin-secret-error"); !strings.Contains(msg, "API key") || eval[int](tb, `document.querySelectorAll('#history .tile').length`) != 0 ||
		eval[string](tb, `sessionStorage.getItem('thumbforge.apiKey') || ''`) != "" {
		t.Fatalf("after the key was deactivated: %q", msg)
	}
}

// hostileStyle stores a completed style named with markup, as if it had slipped past
// the API's checks, so the page's escaping is what is tested.
func (s *site) hostileStyle(t *testing.T) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	id := uuid.New()
	key := "custom/" + id.String() + "/portrait.jpg"
	if err := s.App.Blobs.Put(ctx, key, jpegBytes(t, sampleImage(256, 256, 10)), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	m := &core.CustomModel{ID: id, AccountID: s.Account, Mode: core.ModeStyle, Name: xss, Status: core.StatusCompleted,
		Stage: core.StageReady, Progress: 100, PortraitKey: key, SpecialInstructions: `"><script>alert(2)</script>`}
	if err := s.App.Store.CreateCustomModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestBrowserPersonas(t *testing.T) {
	t.Setenv(app.TrainingDelayEnv, "500ms") // training slow enough to watch its bar move
	s := startSite(t, 500)
	hostile := s.hostileStyle(t)
	tb := newTab(t, 1280, 800)
	tb.signIn(s, "/personas", s.Key)

	// Hostile names and instructions render as text.
	tile := `document.querySelector('[data-id="` + hostile.String() + `"]')`
	tb.until("the hostile style", tile+` !== null`)
	if eval[string](tb, tile+`.querySelector('.title').textContent`) != xss ||
		eval[string](tb, tile+`.querySelector('textarea').value`) != `"><script>alert(2)</script>` ||
		eval[int](tb, `document.querySelectorAll('img[src="x"], #styles script').length`) != 0 {
		t.Fatal("a hostile name or instruction did not render as text")
	}

	// An image dropped on the zone is taken like a chosen one.
	tb.pick("mode", "style")
	tb.do(chromedp.Evaluate[chromedp.Void](`(async () => {
		const c = document.createElement('canvas');
		c.width = 320; c.height = 240;
		const g = c.getContext('2d');
		g.fillStyle = '#c05020'; g.fillRect(0, 0, 320, 240);
		const blob = await new Promise((done) => c.toBlob(done, 'image/jpeg'));
		const dt = new DataTransfer();
		dt.items.add(new File([blob], 'dropped.jpg', { type: 'image/jpeg' }));
		document.getElementById('images-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
	})()`, chromedp.EvalAwaitPromise))
	tb.until("the dropped image", `document.querySelectorAll('#images-list li').length === 1`)

	// The API's limits are checked before upload: a reserved name, a fourth image.
	var files []string
	for i := range 3 {
		files = append(files, writeJPEG(t, sampleImage(640, 480, uint8(60*i))))
	}
	tb.do(chromedp.SendKeys(chromedp.ID("name"), "Admin"), chromedp.SetUploadFiles(chromedp.ID("images"), files))
	tb.until("the fourth image refused", `!document.getElementById('images-error').hidden && document.querySelectorAll('#images-list li').length === 3`)
	tb.do(chromedp.Click(chromedp.ID("create")))
	tb.until("the reserved name refused", `!document.getElementById('name-error').hidden`)
	if msg := tb.text("#name-error"); !strings.Contains(msg, "reserved") {
		t.Fatalf("reserved name: %q", msg)
	}

	// Create the style and watch its bar move to 100 %.
	tb.do(chromedp.Evaluate[chromedp.Void](`window.seen = new Set();
		new MutationObserver(() => document.querySelectorAll('#styles progress').forEach((p) => seen.add(p.value)))
			.observe(document.getElementById('styles'), { subtree: true, childList: true, attributes: true });`))
	tb.do(chromedp.SetValue(chromedp.ID("name"), "Warm sunset"), chromedp.Click(chromedp.ID("create")))
	tb.until("the new style", `[...document.querySelectorAll('#styles .title')].some((e) => e.textContent === 'Warm sunset')`)
	card := `[...document.querySelectorAll('#styles .tile')].find((e) => e.querySelector('.title').textContent === 'Warm sunset')`
	tb.until("training complete", card+`.querySelector('progress').value === 100 && `+card+`.querySelector('.badge.ok') !== null`)
	if !eval[bool](tb, `[...seen].some((v) => v < 100)`) || tb.text(".pct") != "100 %" {
		t.Fatalf("the bar never showed progress: %v", eval[[]float64](tb, `[...seen]`))
	}

	// Special instructions saved from the tile.
	tb.do(chromedp.Evaluate[chromedp.Void](card + `.querySelector('summary').click()`))
	id := eval[string](tb, card+`.dataset.id`)
	tb.do(chromedp.SendKeys(chromedp.CSS(`[data-id="`+id+`"] textarea`), "warm golden light"),
		chromedp.Click(chromedp.CSS(`[data-id="`+id+`"] details button[type="submit"]`)))
	tb.until("saved", card+`.querySelector('.saved').textContent === 'Saved.'`)
	m, err := s.App.Store.GetCustomModel(context.Background(), s.Account, mustUUID(t, id))
	if err != nil || m.SpecialInstructions != "warm golden light" {
		t.Fatalf("instructions after save: %+v %v", m, err)
	}

	// Delete the hostile one, with a confirmation step.
	tb.do(chromedp.Click(chromedp.CSS(`[data-id="` + hostile.String() + `"] button.danger`)))
	tb.do(chromedp.Click(chromedp.CSS(`[data-id="` + hostile.String() + `"] button.danger`)))
	tb.until("the tile gone", tile+` === null`)
	if _, err := s.App.Store.GetCustomModel(context.Background(), s.Account, hostile); err == nil {
		t.Fatal("the record was not deleted")
	}
}

func TestBrowserEditWithPaintedMaskAndFaceSwap(t *testing.T) {
	s := startSite(t, 500)
	tb := newTab(t, 1280, 800)
	tb.signIn(s, "/", s.Key)

	// Edit: paint the left half of the picture and ask for black and white.
	tb.pick("op", "edit")
	tb.do(chromedp.SetUploadFiles(chromedp.ID("image-file"), []string{writeJPEG(t, sampleImage(800, 450, 200))}))
	tb.until("the preview", `!document.querySelector('#image .preview').hidden`)
	tb.pick("mask_mode", "paint")
	tb.until("the canvas", `document.querySelector('#mask-paint canvas').getBoundingClientRect().width > 0`)
	tb.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#mask-paint canvas').scrollIntoView({ block: 'center' })`))
	box := eval[[]float64](tb, `(() => { const r = document.querySelector('#mask-paint canvas').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	tb.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('brush').value = '160'`))
	x0, y0, w, h := box[0], box[1], box[2], box[3]
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, x0+2, y0+2, chromedp.ButtonLeft)}
	for y := y0 + 2; y < y0+h; y += 12 {
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+2, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(chromedp.MouseMoved, x0+w*0.4, y, chromedp.ButtonLeft))
	}
	steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x0+w*0.4, y0+h-2, chromedp.ButtonLeft))
	tb.do(steps...)
	tb.do(chromedp.SendKeys(chromedp.ID("prompt"), "make it black and white"), chromedp.Click(chromedp.ID("generate")))
	tb.until("the edit", `document.getElementById('result-img').dataset.loaded === 'true'`)
	out := fetchJPEG(t, eval[string](tb, `document.getElementById('result-img').src`))
	if left, right := saturation(out, 0.05, 0.3), saturation(out, 0.75, 0.95); left > 8 || right < 30 {
		t.Fatalf("painted mask not applied: saturation left %.1f (want grey), right %.1f (want colour)", left, right)
	}

	// Face swap: a target and a face, both uploaded.
	tb.pick("op", "faceswap")
	face, err := filepath.Abs(filepath.Join("..", "faces", "testdata", "astronaut.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.SetUploadFiles(chromedp.ID("image-file"), []string{face}), chromedp.SetUploadFiles(chromedp.ID("face-file"), []string{face}))
	tb.until("both previews", `!document.querySelector('#image .preview').hidden && !document.querySelector('#face .preview').hidden`)
	tb.pick("mask_mode", "none")
	before := eval[string](tb, `document.getElementById('result-img').src`)
	tb.do(chromedp.Click(chromedp.ID("generate")))
	tb.until("the swap", `document.getElementById('result-img').dataset.loaded === 'true' && document.getElementById('result-img').src !== `+jsString(before))
	if cost := tb.text("#result-cost"); cost != "12 credits" {
		t.Fatalf("face swap cost %q", cost)
	}
}

// focusRing describes the focused element and whether a visible ring marks it (on the
// element, or on the label or drop zone standing in for a visually hidden input).
const focusRing = `(() => {
  const a = document.activeElement;
  let shown = a;
  if (a.matches('input[type="radio"]')) shown = a.closest('label');
  if (a.matches('input[type="file"]')) shown = a.closest('.picker').querySelector('.drop');
  const cs = getComputedStyle(shown);
  return { what: a.tagName + '#' + a.id + '.' + a.className + ' ' + (a.textContent || a.value || '').trim().slice(0, 20),
    ring: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2 };
})()`

func TestBrowserKeyboard(t *testing.T) {
	s := startSite(t, 100)
	tb := newTab(t, 1280, 800)
	tb.signIn(s, "/", s.Key)
	// Every stop of the Tab key shows where the focus is, from the top of the page into the form.
	tb.open(s, "/")
	type stop struct {
		What string
		Ring bool
	}
	var stops []string
	for i := range 16 {
		tb.do(chromedp.KeyEvent(kb.Tab))
		st := eval[stop](tb, focusRing)
		if !st.Ring {
			t.Errorf("tab stop %d (%s) has no visible focus ring", i, st.What)
		}
		stops = append(stops, st.What)
		if eval[bool](tb, `document.activeElement.name === 'op'`) {
			break
		}
	}
	// The operation is a radio group: arrow keys choose, and the form follows.
	if !eval[bool](tb, `document.activeElement.name === 'op'`) {
		t.Fatalf("tabbing never reached the operation choice: %q", stops)
	}
	tb.do(chromedp.KeyEvent(kb.ArrowRight))
	tb.until("the reference fields", `document.querySelector('input[name="op"]:checked').value === 'reference' && !document.getElementById('image').closest('[data-ops]').hidden`)
}
