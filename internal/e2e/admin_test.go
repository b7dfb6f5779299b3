package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"thumbforge/internal/core"
)

// adminToken stores a fresh admin token's hash, as "thumbforge admin-token" does.
func (e *env) adminToken() string {
	e.t.Helper()
	tok, err := core.NewAdminToken()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.App.Store.SetAdminTokenHash(context.Background(), core.HashKey(tok)); err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// admin sends a request to /admin/api with token as the bearer (none when "").
func (e *env) admin(method, path, token string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// want fails unless r has status (and, when code is set, that error code).
func want(t *testing.T, what string, r response, status int, code string) {
	t.Helper()
	if r.Status != status || r.code() != code {
		t.Fatalf("%s: %d %s, want %d %q", what, r.Status, r.Raw, status, code)
	}
}

func TestAdminAPIAuth(t *testing.T) {
	e := start(t, 0)
	want(t, "no token configured", e.admin("GET", "/admin/api/accounts", "tfadm_guess", nil), 401, "INVALID_ADMIN_TOKEN")
	tok := e.adminToken()
	want(t, "no header", e.admin("GET", "/admin/api/accounts", "", nil), 401, "INVALID_ADMIN_TOKEN")
	want(t, "wrong token", e.admin("GET", "/admin/api/accounts", tok+"x", nil), 401, "INVALID_ADMIN_TOKEN")
	want(t, "an API key is no admin token", e.admin("GET", "/admin/api/accounts", e.Key, nil), 401, "INVALID_ADMIN_TOKEN")
	want(t, "right token", e.admin("GET", "/admin/api/accounts", tok, nil), 200, "")
	newer := e.adminToken()
	want(t, "a new token revokes the old", e.admin("GET", "/admin/api/accounts", tok, nil), 401, "INVALID_ADMIN_TOKEN")
	r := e.admin("GET", "/admin/api/nothing", newer, nil)
	want(t, "unknown admin route", r, 404, "NOT_FOUND")
	r = e.admin("DELETE", "/admin/api/accounts", newer, nil)
	if r.Status != 404 || r.Header.Get("Allow") != "GET, POST" {
		t.Fatalf("wrong method: %d %v %s", r.Status, r.Header, r.Raw)
	}
	if r.Header.Get("X-Request-Id") == "" || r.str("request_id") == "" {
		t.Fatalf("admin errors carry no request id: %s", r.Raw)
	}
}

func TestAdminAPIAccountsAndKeys(t *testing.T) {
	e := start(t, 0)
	tok := e.adminToken()
	for _, bad := range []map[string]any{
		{}, {"name": ""}, {"name": "  "}, {"name": "a\x00b"}, {"name": "x", "credits": -1},
		{"name": "x", "credits": 1.5}, {"name": "x", "extra": 1}, {"name": 7},
	} {
		r := e.admin("POST", "/admin/api/accounts", tok, bad)
		want(t, "create "+string(mustMarshal(t, bad)), r, 400, "VALIDATION_ERROR")
	}
	r := e.admin("POST", "/admin/api/accounts", tok, map[string]any{"name": "<b>acme</b>", "credits": 40})
	want(t, "create", r, 200, "")
	id := r.str("id")
	if r.Body["balance"] != 40.0 || r.Body["api_access"] != true || r.Body["name"] != "<b>acme</b>" {
		t.Fatalf("created: %s", r.Raw)
	}
	list := e.admin("GET", "/admin/api/accounts", tok, nil)
	if accts, _ := list.Body["accounts"].([]any); len(accts) != 2 {
		t.Fatalf("accounts: %s", list.Raw)
	}

	want(t, "grant 0", e.admin("POST", "/admin/api/accounts/"+id+"/credits", tok, map[string]any{"amount": 0}), 400, "VALIDATION_ERROR")
	want(t, "grant nothing", e.admin("POST", "/admin/api/accounts/"+id+"/credits", tok, map[string]any{}), 400, "VALIDATION_ERROR")
	want(t, "grant to nobody", e.admin("POST", "/admin/api/accounts/"+uuid.NewString()+"/credits", tok, map[string]any{"amount": 5}), 404, "NOT_FOUND")
	r = e.admin("POST", "/admin/api/accounts/"+id+"/credits", tok, map[string]any{"amount": 25})
	if want(t, "grant", r, 200, ""); r.Body["balance"] != 65.0 {
		t.Fatalf("grant: %s", r.Raw)
	}

	r = e.admin("POST", "/admin/api/accounts/"+id+"/keys", tok, nil)
	want(t, "create key", r, 200, "")
	key, keyID := r.str("key"), r.str("id")
	if !core.WellFormedKey(key) || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("key: %s %v", r.Raw, r.Header)
	}
	keys := e.admin("GET", "/admin/api/accounts/"+id+"/keys", tok, nil)
	if ks, _ := keys.Body["keys"].([]any); len(ks) != 1 || bytes.Contains(keys.Raw, []byte(key)) {
		t.Fatalf("keys list: %s", keys.Raw)
	}
	// The key works on the public API: an unknown record is NOT_FOUND, past authentication.
	probe := "/v2/custom/" + uuid.NewString()
	want(t, "new key", e.do("GET", probe, key, nil), 404, "NOT_FOUND")

	want(t, "concurrency 0", e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{"concurrency": 0}), 400, "VALIDATION_ERROR")
	want(t, "empty patch", e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{}), 400, "VALIDATION_ERROR")
	want(t, "null patch", e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{"concurrency": nil}), 400, "VALIDATION_ERROR")
	want(t, "suspended as text", e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{"suspended": "yes"}), 400, "VALIDATION_ERROR")
	want(t, "patch a bad id", e.admin("PATCH", "/admin/api/accounts/nope", tok, map[string]any{"suspended": true}), 404, "NOT_FOUND")
	r = e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{"suspended": true, "concurrency": 3, "topup_amount": 7})
	if want(t, "suspend", r, 200, ""); r.Body["suspended"] != true || r.Body["concurrency"] != 3.0 || r.Body["topup_amount"] != 7.0 {
		t.Fatalf("patch: %s", r.Raw)
	}
	want(t, "suspended account", e.do("GET", probe, key, nil), 403, "ACCOUNT_SUSPENDED")
	e.admin("PATCH", "/admin/api/accounts/"+id, tok, map[string]any{"suspended": false})
	want(t, "unsuspended account", e.do("GET", probe, key, nil), 404, "NOT_FOUND")

	want(t, "bad status", e.admin("PATCH", "/admin/api/keys/"+keyID, tok, map[string]any{"status": "gone"}), 400, "VALIDATION_ERROR")
	want(t, "deactivate", e.admin("PATCH", "/admin/api/keys/"+keyID, tok, map[string]any{"status": "inactive"}), 200, "")
	want(t, "inactive key", e.do("GET", probe, key, nil), 401, "API_KEY_INACTIVE")
	want(t, "delete", e.admin("PATCH", "/admin/api/keys/"+keyID, tok, map[string]any{"status": "deleted"}), 200, "")
	want(t, "revive", e.admin("PATCH", "/admin/api/keys/"+keyID, tok, map[string]any{"status": "active"}), 409, "CONFLICT")
	want(t, "unknown key", e.admin("PATCH", "/admin/api/keys/"+uuid.NewString(), tok, map[string]any{"status": "active"}), 404, "NOT_FOUND")
}

func TestAdminAPIMaintenance(t *testing.T) {
	e := start(t, 0)
	tok := e.adminToken()
	want(t, "no body", e.admin("PUT", "/admin/api/maintenance", tok, map[string]any{}), 400, "VALIDATION_ERROR")
	r := e.admin("PUT", "/admin/api/maintenance", tok, map[string]any{"maintenance": true})
	if want(t, "on", r, 200, ""); r.Body["maintenance"] != true {
		t.Fatalf("on: %s", r.Raw)
	}
	want(t, "API in maintenance", e.do("GET", "/v2/custom/"+uuid.NewString(), e.Key, nil), 503, "SERVICE_UNDER_MAINTENANCE")
	// The operator's own endpoints stay up, or maintenance could not be turned off here.
	if r := e.admin("GET", "/admin/api/maintenance", tok, nil); r.Body["maintenance"] != true {
		t.Fatalf("status: %s", r.Raw)
	}
	want(t, "off", e.admin("PUT", "/admin/api/maintenance", tok, map[string]any{"maintenance": false}), 200, "")
	want(t, "API back", e.do("GET", "/v2/custom/"+uuid.NewString(), e.Key, nil), 404, "NOT_FOUND")
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
