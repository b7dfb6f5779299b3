package console_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"thumbforge/internal/app"
	"thumbforge/internal/core"
	"thumbforge/internal/engines"
	"thumbforge/internal/engines/enginetest/comfyfake"
)

// xss is a name a hostile user or operator might give; it must render as text.
const xss = `<img src=x onerror=alert(1)>`

// adminToken stores a new admin token's hash, as "thumbforge admin-token" does.
func (s *site) adminToken(t *testing.T) string {
	t.Helper()
	tok, err := core.NewAdminToken()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.App.Store.SetAdminTokenHash(context.Background(), core.HashKey(tok)); err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBrowserAdmin(t *testing.T) {
	// A ComfyUI engine with two backends, one up and one down, for the health list.
	_, comfy := comfyfake.Serve(t, comfyfake.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	s := startSite(t, 0, func(c *app.Config) {
		c.Engine = engines.Config{Kind: "comfyui", URLs: []string{comfy.URL, down}, HealthInterval: 50 * time.Millisecond}
	})
	tok := s.adminToken(t)
	tb := newTab(t, 1280, 800)

	// The admin API refuses a request without the token, seen from the page itself.
	tb.open(s, "/admin")
	if got := eval[int](tb, `fetch('/admin/api/accounts').then((r) => r.status)`); got != 401 {
		t.Fatalf("GET /admin/api/accounts without a token: %d, want 401", got)
	}
	// A wrong token is refused next to the field, and nothing is kept.
	tb.do(chromedp.SendKeys(chromedp.ID("signin-secret"), tok+"x"), chromedp.Click(chromedp.CSS(`#signin-form button[type="submit"]`)))
	tb.until("the refusal", `!document.getElementById('signin-secret-error').hidden`)
	if msg := tb.text("#signin-secret-error"); msg == "" || eval[bool](tb, `sessionStorage.length > 0`) {
		t.Fatalf("wrong token: error %q, storage kept", msg)
	}
	tb.do(chromedp.Clear(chromedp.ID("signin-secret")))
	tb.signIn(s, "/admin", tok)
	if eval[string](tb, `sessionStorage.getItem('thumbforge.adminToken')`) != tok || eval[string](tb, `document.cookie`) != "" {
		t.Fatal("the token is not in sessionStorage only")
	}
	tb.until("the accounts", `document.querySelectorAll('#accounts .acct').length === 1`)

	// Create an account whose name is hostile markup: it must show as text.
	tb.do(chromedp.SendKeys(chromedp.ID("new-name"), xss), chromedp.SetValue(chromedp.ID("new-credits"), "40"),
		chromedp.Click(chromedp.ID("create")))
	tb.until("the new account", `document.querySelectorAll('#accounts .acct').length === 2`)
	card := `[...document.querySelectorAll('#accounts .acct')].find((c) => c.querySelector('.name').textContent === ` + jsString(xss) + `)`
	if !eval[bool](tb, `!!`+card) || eval[int](tb, `document.querySelectorAll('img[src="x"]').length`) != 0 {
		t.Fatal("the account's name did not render as text")
	}
	id := eval[string](tb, card+`.dataset.id`)

	// Credits: a refused amount shows next to its field; a good one moves the balance.
	tb.do(chromedp.SetValue(chromedp.CSS(`[data-id="`+id+`"] input[type="number"]`), "0"),
		chromedp.Click(chromedp.CSS(`[data-id="`+id+`"] form button[type="submit"]`)))
	tb.until("the amount error", card+`.querySelector('.field-error:not([hidden])') !== null`)
	tb.do(chromedp.SetValue(chromedp.CSS(`[data-id="`+id+`"] input[type="number"]`), "25"),
		chromedp.Click(chromedp.CSS(`[data-id="`+id+`"] form button[type="submit"]`)))
	tb.until("the new balance", card+`.querySelector('.balance').textContent === '65 credits'`)

	// Suspend, then make a key and see its secret once.
	tb.do(chromedp.Click(chromedp.CSS(`[data-id="` + id + `"] .gap-sm button:first-child`)))
	tb.until("suspended", card+`.querySelector('.badge.bad') !== null && `+card+`.textContent.includes('Unsuspend')`)
	a, err := s.App.Store.GetAccount(context.Background(), mustUUID(t, id))
	if err != nil || !a.Suspended || a.Balance != 65 {
		t.Fatalf("account after the page's changes: %+v %v", a, err)
	}
	tb.do(chromedp.Click(chromedp.CSS(`[data-id="` + id + `"] [aria-expanded]`)))
	tb.until("the keys", card+`.querySelector('.keys button.primary') !== null`)
	tb.do(chromedp.Click(chromedp.CSS(`[data-id="` + id + `"] .keys button.primary`)))
	tb.until("the new key", card+`.querySelector('.new-key') !== null`)
	key := eval[string](tb, card+`.querySelector('.new-key').textContent`)
	if !core.WellFormedKey(key) {
		t.Fatalf("new key %q", key)
	}

	// Maintenance: on from the page, the API answers 503, the operator's page still works.
	tb.do(chromedp.Click(chromedp.ID("maintenance")))
	tb.until("maintenance on", `document.getElementById('maintenance').getAttribute('aria-pressed') === 'true'`)
	if on, err := s.App.Store.Maintenance(context.Background()); err != nil || !on {
		t.Fatalf("maintenance after the switch: %v %v", on, err)
	}
	if got := eval[int](tb, `fetch('/v2/custom/'+crypto.randomUUID(), {headers: {'X-Api-Key': `+jsString(s.Key)+`}}).then((r) => r.status)`); got != 503 {
		t.Fatalf("API during maintenance: %d", got)
	}
	tb.do(chromedp.Click(chromedp.ID("maintenance")))
	tb.until("maintenance off", `document.getElementById('maintenance').getAttribute('aria-pressed') === 'false'`)
	// Health: the service, the engine and each backend, the dead one with its reason.
	tb.until("both backends' health", `(() => {
		const items = [...document.querySelectorAll('#health li')].map((li) => li.textContent);
		const ok = items.some((t) => t.startsWith(`+jsString(comfy.URL)+`) && t.includes('healthy ·') && !t.includes('unhealthy')) &&
			items.some((t) => t.startsWith(`+jsString(down)+`) && t.includes('unhealthy'));
		if (!ok) document.getElementById('health-refresh').click();
		return ok && items[1].includes('comfyui');
	})()`)

	// Signing out forgets the token and shows the sign-in form on a fresh page.
	tb.do(chromedp.Click(chromedp.ID("signout")))
	tb.until("signed out", `document.readyState === 'complete' && !document.getElementById('signin').hidden`)
	if eval[int](tb, `sessionStorage.length`) != 0 || eval[int](tb, `document.querySelectorAll('#accounts .acct').length`) != 0 {
		t.Fatal("signing out left the token or the accounts behind")
	}
}
