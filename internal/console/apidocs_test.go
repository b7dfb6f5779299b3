package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAPIReferencePage loads /docs (internal/apidocs, beside the console) in Chromium under
// the page's Content-Security-Policy: RapiDoc must render the document's operations from
// what the server itself serves, with no console error and no CSP violation.
func TestAPIReferencePage(t *testing.T) {
	s := startSite(t, 0)
	for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
		tb := newTab(t, size[0], size[1])
		tb.do(chromedp.Navigate(s.URL + "/docs"))
		// RapiDoc renders in its shadow root once it has fetched and parsed /openapi.json.
		const shadow = `((document.querySelector('rapi-doc') || {}).shadowRoot || {textContent: ''}).textContent`
		tb.until("the reference rendered", shadow+`.includes('Thumbnail from a reference image')`)
		for _, want := range []string{"Create a persona", "Read a persona (v1)", "Outputs still within retention", "TOO_MANY_REQUESTS"} {
			if !eval[bool](tb, shadow+".includes("+jsString(want)+")") {
				t.Errorf("%dx%d: the page does not show %q", size[0], size[1], want)
			}
		}
	}
}
