package api

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// The account's own view of itself, with its key: GET /v2/account, its usage, its ledger,
// its personas and styles, its outputs. Lists are newest first and paged by an opaque
// cursor (next_cursor, null on the last page).

// Paging and period limits of the listing endpoints.
const (
	defaultPage   = 50
	maxPage       = 200
	maxUsageDays  = 366
	usageDays     = 30 // the default period, ending today
	dateLayout    = "2006-01-02"
	cursorInvalid = "is not a cursor this list gave"
)

type accountV2 struct {
	AccountID   string `json:"account_id"`
	Name        string `json:"name"`
	Balance     int64  `json:"balance"`
	APIAccess   bool   `json:"api_access"`
	Concurrency int    `json:"concurrency"`
	Suspended   bool   `json:"suspended"`
	RequestID   string `json:"request_id"`
}

type usageV2 struct {
	From      string          `json:"from"`
	To        string          `json:"to"`
	Usage     []core.UsageDay `json:"usage"`
	RequestID string          `json:"request_id"`
}

type ledgerEntryV2 struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	Delta     int64     `json:"delta"`
	Amount    int64     `json:"amount"`
	Operation string    `json:"operation"`
	Ref       string    `json:"ref"`
	CreatedAt time.Time `json:"created_at"`
}

type ledgerV2 struct {
	Entries    []ledgerEntryV2 `json:"entries"`
	NextCursor *string         `json:"next_cursor"`
	RequestID  string          `json:"request_id"`
}

type outputV2 struct {
	Output    string    `json:"output"`
	RequestID string    `json:"request_id"`
	Operation string    `json:"operation"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

type itemsV2[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
	RequestID  string  `json:"request_id"`
}

// query reads a GET request's parameters, collecting every problem like body does.
type query struct {
	v       url.Values
	details []core.Detail
}

func (q *query) problem(field, msg string) {
	q.details = append(q.details, core.Detail{Field: field, Message: msg})
}

// limit reads limit: 1 to 200, default 50.
func (q *query) limit() int {
	s := q.v.Get("limit")
	if s == "" {
		return defaultPage
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPage {
		q.problem("limit", fmt.Sprintf("must be a whole number from 1 to %d", maxPage))
		return defaultPage
	}
	return n
}

// cursor decodes the opaque cursor into its parts, or nil when absent.
func (q *query) cursor(parts int) []string {
	s := q.v.Get("cursor")
	if s == "" {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	fields := strings.SplitN(string(raw), "|", parts)
	if err != nil || len(fields) != parts {
		q.problem("cursor", cursorInvalid)
		return nil
	}
	return fields
}

// after reads a cursor of a time-ordered list; zero when absent.
func (q *query) after() core.PageAfter {
	f := q.cursor(2)
	if f == nil {
		return core.PageAfter{}
	}
	micros, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || micros <= 0 {
		q.problem("cursor", cursorInvalid)
		return core.PageAfter{}
	}
	return core.PageAfter{Time: time.UnixMicro(micros).UTC(), Key: f[1]}
}

func (q *query) finish() error {
	if len(q.details) > 0 {
		return core.Invalid(q.details)
	}
	return nil
}

func encodeCursor(parts ...string) *string {
	s := base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, "|")))
	return &s
}

func timeCursor(t time.Time, key string) *string {
	return encodeCursor(strconv.FormatInt(t.UnixMicro(), 10), key)
}

func (s *Server) v2Account(w http.ResponseWriter, r *http.Request) error {
	a := principal(r).Account
	writeJSON(w, http.StatusOK, accountV2{AccountID: a.ID.String(), Name: a.Name, Balance: a.Balance, APIAccess: a.APIAccess,
		Concurrency: a.Concurrency, Suspended: a.Suspended, RequestID: core.RequestID(r.Context())})
	return nil
}

// v2Usage: charges per UTC day and operation for from..to (dates, both included; default
// the last 30 days, at most 366).
func (s *Server) v2Usage(w http.ResponseWriter, r *http.Request) error {
	q := &query{v: r.URL.Query()}
	today := s.svc.Now().UTC().Truncate(24 * time.Hour)
	date := func(field string, def time.Time) time.Time {
		v := q.v.Get(field)
		if v == "" {
			return def
		}
		d, err := time.Parse(dateLayout, v)
		if err != nil {
			q.problem(field, "must be a date as YYYY-MM-DD")
			return def
		}
		return d
	}
	to := date("to", today)
	from := date("from", to.AddDate(0, 0, 1-usageDays))
	if len(q.details) == 0 {
		switch days := int(to.Sub(from).Hours()/24) + 1; {
		case days < 1:
			q.problem("from", "must not be after to")
		case days > maxUsageDays:
			q.problem("from", "the period may span at most 366 days")
		}
	}
	if err := q.finish(); err != nil {
		return err
	}
	rows, err := s.store.Usage(r.Context(), principal(r).Account.ID, from, to.AddDate(0, 0, 1))
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	writeJSON(w, http.StatusOK, usageV2{From: from.Format(dateLayout), To: to.Format(dateLayout), Usage: rows,
		RequestID: core.RequestID(r.Context())})
	return nil
}

func (s *Server) v2Ledger(w http.ResponseWriter, r *http.Request) error {
	q := &query{v: r.URL.Query()}
	limit := q.limit()
	var before int64
	if f := q.cursor(1); f != nil {
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n <= 0 {
			q.problem("cursor", cursorInvalid)
		}
		before = n
	}
	if err := q.finish(); err != nil {
		return err
	}
	rows, err := s.store.LedgerPage(r.Context(), principal(r).Account.ID, before, limit+1)
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	out := ledgerV2{Entries: []ledgerEntryV2{}, RequestID: core.RequestID(r.Context())}
	for i, e := range rows {
		if i == limit {
			out.NextCursor = encodeCursor(strconv.FormatInt(rows[i-1].ID, 10))
			break
		}
		out.Entries = append(out.Entries, ledgerEntryV2{ID: e.ID, Kind: string(e.Kind), Delta: e.Delta, Amount: e.Amount,
			Operation: e.Operation, Ref: e.Ref, CreatedAt: e.CreatedAt})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// v2ListCustom: the account's personas and styles (mode=persona|style, or both), in the
// shape of GET /v2/custom/{id}.
func (s *Server) v2ListCustom(w http.ResponseWriter, r *http.Request) error {
	q := &query{v: r.URL.Query()}
	mode := core.Mode(q.v.Get("mode"))
	if mode != "" && mode != core.ModePersona && mode != core.ModeStyle {
		q.problem("mode", "must be persona or style")
	}
	limit, after := q.limit(), q.after()
	if after.Key != "" {
		if _, err := uuid.Parse(after.Key); err != nil {
			q.problem("cursor", cursorInvalid)
		}
	}
	if err := q.finish(); err != nil {
		return err
	}
	list, err := s.store.CustomModelsPage(r.Context(), principal(r).Account.ID, mode, after, limit+1)
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	out := itemsV2[customV2]{Items: []customV2{}, RequestID: core.RequestID(r.Context())}
	for i := range list {
		if i == limit {
			out.NextCursor = timeCursor(list[i-1].CreatedAt, list[i-1].ID.String())
			break
		}
		item, err := s.customBody(r.Context(), &list[i])
		if err != nil {
			return err
		}
		out.Items = append(out.Items, item)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// v2ListOutputs: the account's outputs whose links still work, each with a link signed
// until its expiry.
func (s *Server) v2ListOutputs(w http.ResponseWriter, r *http.Request) error {
	q := &query{v: r.URL.Query()}
	limit, after := q.limit(), q.after()
	if err := q.finish(); err != nil {
		return err
	}
	list, err := s.store.OutputsPage(r.Context(), principal(r).Account.ID, s.svc.Now(), after, limit+1)
	if err != nil {
		return core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	out := itemsV2[outputV2]{Items: []outputV2{}, RequestID: core.RequestID(r.Context())}
	for i, o := range list {
		if i == limit {
			out.NextCursor = timeCursor(list[i-1].CreatedAt, list[i-1].Key)
			break
		}
		link, err := s.signed(r.Context(), o.Key, o.ExpiresAt)
		if err != nil {
			return err
		}
		id := o.RequestID
		if id == "" { // recorded before request ids were kept: the file is named after it
			id = strings.TrimSuffix(path.Base(o.Key), path.Ext(o.Key))
		}
		out.Items = append(out.Items, outputV2{Output: link, RequestID: id, Operation: o.Operation, CreatedAt: o.CreatedAt, ExpiresAt: o.ExpiresAt})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
