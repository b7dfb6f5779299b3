package storetest

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// testLedgerPage: newest first, pages by id, only the account's own rows.
func testLedgerPage(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	for i := int64(1); i <= 3; i++ {
		_, err := e.s.Grant(e.ctx, a.ID, i, "g")
		must(t, err)
		_, err = e.s.Grant(e.ctx, b.ID, 10, "other")
		must(t, err)
	}
	first, err := e.s.LedgerPage(e.ctx, a.ID, 0, 2)
	must(t, err)
	if len(first) != 2 || first[0].Amount != 3 || first[1].Amount != 2 {
		t.Fatalf("first page %+v", first)
	}
	rest, err := e.s.LedgerPage(e.ctx, a.ID, first[1].ID, 2)
	must(t, err)
	if len(rest) != 1 || rest[0].Amount != 1 || rest[0].AccountID != a.ID {
		t.Fatalf("second page %+v", rest)
	}
}

// testUsage: charges only, per UTC day and operation, within [from, to).
func testUsage(e *env) {
	t := e.t
	a, b := e.account(1000, 0), e.account(1000, 0)
	spend := func(acct uuid.UUID, op string, price int64, charge bool) {
		r, err := e.s.Reserve(e.ctx, acct, price, op, core.Owner{})
		must(t, err)
		if charge {
			must(t, e.s.Charge(e.ctx, r.ID))
		} else {
			must(t, e.s.Release(e.ctx, r.ID))
		}
	}
	day0 := e.clock.Now().UTC().Truncate(24 * time.Hour)
	spend(a.ID, "thumbnail.mdl_4_5", 13, true)
	spend(a.ID, "thumbnail.mdl_4_5", 13, true)
	spend(a.ID, "title", 8, true)
	spend(a.ID, "edit", 12, false) // released: not usage
	spend(b.ID, "title", 8, true)  // another account's
	e.clock.Advance(24 * time.Hour)
	spend(a.ID, "title", 8, true)
	e.clock.Advance(24 * time.Hour)
	spend(a.ID, "score", 3, true) // outside [from, to)

	got, err := e.s.Usage(e.ctx, a.ID, day0, day0.Add(48*time.Hour))
	must(t, err)
	d0, d1 := day0.Format("2006-01-02"), day0.Add(24*time.Hour).Format("2006-01-02")
	want := []core.UsageDay{{Date: d0, Operation: "thumbnail.mdl_4_5", Count: 2, Credits: 26},
		{Date: d0, Operation: "title", Count: 1, Credits: 8}, {Date: d1, Operation: "title", Count: 1, Credits: 8}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Usage = %v, want %v", got, want)
	}
	none, err := e.s.Usage(e.ctx, a.ID, day0.Add(-48*time.Hour), day0)
	must(t, err)
	if len(none) != 0 || none == nil {
		t.Fatalf("usage before any charge: %#v", none)
	}
}

// testCustomModelsPage: newest first, by mode or all, paged, the account's own only.
func testCustomModelsPage(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	var made []*core.CustomModel
	for i, mode := range []core.Mode{core.ModePersona, core.ModeStyle, core.ModePersona, core.ModePersona} {
		made = append(made, e.custom(a.ID, mode, fmt.Sprintf("m%d", i)))
		e.custom(b.ID, mode, fmt.Sprintf("m%d", i))
		if i != 2 { // two records share a time: the id breaks the tie
			e.clock.Advance(time.Second)
		}
	}
	names := func(ms []core.CustomModel) string {
		s := ""
		for _, m := range ms {
			s += m.Name + " "
		}
		return s
	}
	all, err := e.s.CustomModelsPage(e.ctx, a.ID, "", core.PageAfter{}, 10)
	must(t, err)
	if len(all) != 4 || all[len(all)-1].ID != made[0].ID {
		t.Fatalf("all: %s", names(all))
	}
	var pages []core.CustomModel
	after := core.PageAfter{}
	for {
		page, err := e.s.CustomModelsPage(e.ctx, a.ID, core.ModePersona, after, 2)
		must(t, err)
		if len(page) == 0 {
			break
		}
		pages = append(pages, page...)
		last := page[len(page)-1]
		after = core.PageAfter{Time: last.CreatedAt, Key: last.ID.String()}
	}
	if names(pages) != names([]core.CustomModel{all[0], all[1], all[3]}) {
		t.Fatalf("personas paged: %s, all: %s", names(pages), names(all))
	}
}

// testOutputsPage: live outputs only, newest first, paged, with what made them.
func testOutputsPage(e *env) {
	t := e.t
	a, b := e.account(0, 0), e.account(0, 0)
	now := e.clock.Now()
	for i := range 5 {
		must(t, e.s.RecordOutput(e.ctx, core.Output{Key: fmt.Sprintf("out/%d", i), AccountID: a.ID, RequestID: fmt.Sprintf("r%d", i),
			Operation: "edit", ExpiresAt: now.Add(time.Duration(i-1) * time.Hour)})) // out/0 expired already
		must(t, e.s.RecordOutput(e.ctx, core.Output{Key: fmt.Sprintf("other/%d", i), AccountID: b.ID, ExpiresAt: now.Add(time.Hour)}))
		e.clock.Advance(time.Second)
	}
	var keys []string
	after := core.PageAfter{}
	for {
		page, err := e.s.OutputsPage(e.ctx, a.ID, now, after, 3)
		must(t, err)
		if len(page) == 0 {
			break
		}
		for _, o := range page {
			keys = append(keys, o.Key)
			if o.RequestID != "r"+o.Key[4:] || o.Operation != "edit" || o.AccountID != a.ID || o.ExpiresAt.Before(now) {
				t.Fatalf("output %+v", o)
			}
		}
		last := page[len(page)-1]
		after = core.PageAfter{Time: last.CreatedAt, Key: last.Key}
	}
	if fmt.Sprint(keys) != "[out/4 out/3 out/2 out/1]" {
		t.Fatalf("outputs %v", keys)
	}
}
