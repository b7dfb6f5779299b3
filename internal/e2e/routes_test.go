package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestEveryRouteDocumented: the routes the running server's mux has registered and the
// operations of the /openapi.json it serves are the same set. The mux's other patterns are
// only catch-alls, web pages and static files: answered with no JSON.
func TestEveryRouteDocumented(t *testing.T) {
	e := start(t, 10)
	resp, err := http.Get(e.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "post", "put", "patch", "delete":
				ops = append(ops, strings.ToUpper(method)+" "+path)
			}
		}
	}
	routes, others := e.App.API.Patterns()
	if len(routes) < 40 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	for _, r := range routes {
		if !slices.Contains(ops, r) {
			t.Errorf("registered route %s is not in /openapi.json", r)
		}
	}
	for _, op := range ops {
		if !slices.Contains(routes, op) {
			t.Errorf("/openapi.json has %s, which the server does not route", op)
		}
	}
	for _, p := range others {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			if !strings.HasSuffix(p, "/") {
				t.Errorf("catch-all %q is not a prefix", p)
			}
			continue // a catch-all: answers unknown paths in its version's shape
		}
		if method != "GET" {
			t.Errorf("undocumented pattern %s: only pages and files may be left out", p)
			continue
		}
		if strings.HasSuffix(path, "/") {
			continue // a tree of static files (console assets, output files)
		}
		r, err := http.Get(e.URL + strings.TrimSuffix(path, "{$}"))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if ct := r.Header.Get("Content-Type"); r.StatusCode != 200 || strings.Contains(ct, "json") {
			t.Errorf("undocumented %s answers %d %s: want a page or a file", p, r.StatusCode, ct)
		}
	}
}
