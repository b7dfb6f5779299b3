package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/core"
)

// items returns a list answer's items (or entries).
func (r response) items(field string) []map[string]any {
	var out []map[string]any
	list, _ := r.Body[field].([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}

// pages follows next_cursor through a list and returns every item, checking each page's size.
func (e *env) pages(path, field string, limit int) []map[string]any {
	e.t.Helper()
	var all []map[string]any
	cursor := ""
	for {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		r := e.do("GET", fmt.Sprintf("%s%slimit=%d&cursor=%s", path, sep, limit, url.QueryEscape(cursor)), e.Key, nil)
		if r.Status != 200 || r.str("request_id") == "" {
			e.t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		page := r.items(field)
		all = append(all, page...)
		next, _ := r.Body["next_cursor"].(string)
		if next == "" {
			if _, present := r.Body["next_cursor"]; !present || len(page) > limit {
				e.t.Fatalf("%s: last page %s", path, r.Raw)
			}
			return all
		}
		if len(page) != limit {
			e.t.Fatalf("%s: a page of %d before the end, limit %d", path, len(page), limit)
		}
		cursor = next
	}
}

func TestAccountAndListings(t *testing.T) {
	e := start(t, 200)
	other, otherKey := e.newAccount(100)
	r := e.do("GET", "/v2/account", e.Key, nil)
	if r.Status != 200 || r.str("account_id") != e.Account.String() || r.Body["balance"] != 200.0 || r.Body["api_access"] != true ||
		r.Body["concurrency"] != 10.0 || r.Body["suspended"] != false || r.str("name") != "test" {
		t.Fatalf("account: %d %s", r.Status, r.Raw)
	}

	// Three outputs of three operations; the other account makes one too.
	var ids []string
	for _, call := range []struct{ path, body string }{
		{"/v2/thumbnail/text", `{"prompt":"Ten budget travel tips for Japan","model":"mdl_4_5","format":"16:9"}`},
		{"/v2/thumbnail/text", `{"prompt":"Deep sea creatures","model":"mdl_3","format":"1:1"}`},
		{"/v2/thumbnail/edit", `{"prompt":"make it black and white","image_base64":"` + dataURL(t, testImage(320, 180, 9)) + `"}`},
	} {
		r := e.post(call.path, call.body)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", call.path, r.Status, r.Raw)
		}
		ids = append(ids, r.str("request_id"))
		e.Clock.Advance(time.Second)
	}
	if r := e.do("POST", "/v2/thumbnail/text", otherKey, `{"prompt":"Not yours","model":"mdl_2","format":"1:1"}`); r.Status != 200 {
		t.Fatal(r.Status)
	}
	outs := e.pages("/v2/outputs", "items", 2)
	wantOps := []string{"edit", "thumbnail.mdl_3", "thumbnail.mdl_4_5"}
	if len(outs) != 3 {
		t.Fatalf("outputs: %v", outs)
	}
	for i, o := range outs {
		if o["request_id"] != ids[2-i] || o["operation"] != wantOps[i] || o["created_at"] == nil || o["expires_at"] == nil {
			t.Fatalf("output %d: %v", i, o)
		}
		e.decodeOutput(o["output"].(string))
	}
	// Usage today, per operation; the ledger, paged, newest first.
	today := e.Clock.Now().UTC().Format("2006-01-02")
	r = e.do("GET", "/v2/account/usage?from="+today+"&to="+today, e.Key, nil)
	if r.Status != 200 || r.str("from") != today || r.str("to") != today {
		t.Fatalf("usage: %d %s", r.Status, r.Raw)
	}
	got := map[string]string{}
	for _, u := range r.items("usage") {
		got[u["operation"].(string)] = fmt.Sprintf("%v/%v/%v", u["date"], u["count"], u["credits"])
	}
	if len(got) != 3 || got["thumbnail.mdl_4_5"] != today+"/1/13" || got["thumbnail.mdl_3"] != today+"/1/16" || got["edit"] != today+"/1/12" {
		t.Fatalf("usage: %v", got)
	}
	if r := e.do("GET", "/v2/account/usage", e.Key, nil); r.Status != 200 || len(r.items("usage")) != 3 {
		t.Fatalf("usage over the default 30 days: %s", r.Raw)
	}
	ledger := e.pages("/v2/account/ledger", "entries", 3)
	if len(ledger) != 7 || ledger[0]["kind"] != "charge" || ledger[len(ledger)-1]["kind"] != "grant" || ledger[0]["operation"] != "edit" {
		t.Fatalf("ledger: %v", ledger)
	}

	// Personas and styles, by mode, paged; another account's stay hidden.
	ctx := context.Background()
	for i, mode := range []core.Mode{core.ModeStyle, core.ModePersona, core.ModeStyle, core.ModeStyle} {
		m := &core.CustomModel{AccountID: e.Account, Mode: mode, Name: fmt.Sprintf("n%d", i), Status: core.StatusProcessing}
		if err := e.App.Store.CreateCustomModel(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := e.App.Store.CreateCustomModel(ctx, &core.CustomModel{AccountID: other, Mode: mode, Name: m.Name}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Second)
	}
	styles := e.pages("/v2/custom?mode=style", "items", 2)
	if len(styles) != 3 || styles[0]["name"] != "n3" || styles[2]["name"] != "n0" || styles[0]["mode"] != "style" || styles[0]["status"] != "processing" {
		t.Fatalf("styles: %v", styles)
	}
	if _, has := styles[0]["request_id"]; has {
		t.Fatalf("an item carries a request id: %v", styles[0])
	}
	if all := e.pages("/v2/custom", "items", 10); len(all) != 4 {
		t.Fatalf("all custom: %v", all)
	}

	// Once their links expire, outputs leave the list.
	e.Clock.Advance(25 * time.Hour)
	if outs := e.pages("/v2/outputs", "items", 10); len(outs) != 0 {
		t.Fatalf("expired outputs listed: %v", outs)
	}
	if r := e.do("GET", "/v2/outputs", "", nil); r.Status != 401 || r.code() != "MISSING_API_KEY" {
		t.Fatalf("without a key: %d %s", r.Status, r.Raw)
	}
}

func TestListingValidation(t *testing.T) {
	e := start(t, 0)
	for _, c := range []struct{ path, field string }{
		{"/v2/outputs?limit=0", "limit"},
		{"/v2/outputs?limit=201", "limit"},
		{"/v2/custom?limit=-1", "limit"},
		{"/v2/account/ledger?limit=ten", "limit"},
		{"/v2/outputs?cursor=!!!", "cursor"},
		{"/v2/outputs?cursor=bm90LWEtY3Vyc29y", "cursor"},
		{"/v2/account/ledger?cursor=LTE", "cursor"},
		{"/v2/custom?cursor=MTIzfG5vdC1hLXV1aWQ", "cursor"},
		{"/v2/custom?mode=avatar", "mode"},
		{"/v2/account/usage?from=2026-13-01", "from"},
		{"/v2/account/usage?to=yesterday", "to"},
		{"/v2/account/usage?from=2026-05-02&to=2026-05-01", "from"},
		{"/v2/account/usage?from=2024-01-01&to=2026-01-01", "from"},
	} {
		r := e.do("GET", c.path, e.Key, nil)
		errObj, _ := r.Body["error"].(map[string]any)
		details, _ := errObj["details"].([]any)
		if r.Status != 400 || r.code() != "VALIDATION_ERROR" || len(details) != 1 || details[0].(map[string]any)["field"] != c.field {
			t.Errorf("%s: %d %s", c.path, r.Status, r.Raw)
		}
	}
}
