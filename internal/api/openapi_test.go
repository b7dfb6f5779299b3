package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"thumbforge/internal/core"
)

// operational are the routes of the document that are not API routes (served by the mux
// directly, without a key); the end-to-end tests call each of them.
var operational = []string{"GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.json", "GET /openapi-3.0.json", "GET /docs"}

func loadDoc(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	l := openapi3.NewLoader()
	doc, err := l.LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadDoc(t, OpenAPI)
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	v30, err := OpenAPI30(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	doc30 := loadDoc(t, v30)
	if doc30.IsOpenAPI31OrLater() || doc30.Paths.Len() != doc.Paths.Len() {
		t.Fatalf("the 3.0 rendering: openapi %q, %d paths", doc30.OpenAPI, doc30.Paths.Len())
	}
	for _, bad := range []string{`"type":["string","null"]`, `"type": [`, `"const"`} {
		if strings.Contains(string(v30), bad) {
			t.Errorf("the 3.0 rendering still has %s", bad)
		}
	}
}

// operations lists "METHOD /path" of every operation of the document.
func operations(doc *openapi3.T) map[string]*openapi3.Operation {
	out := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out[method+" "+path] = op
		}
	}
	return out
}

func TestOpenAPIListsEveryRoute(t *testing.T) {
	ops := operations(loadDoc(t, OpenAPI))
	want := slices.Clone(operational)
	s := &Server{}
	for _, rt := range s.apiRoutes() {
		want = append(want, rt.method+" "+rt.path)
	}
	for _, w := range want {
		if ops[w] == nil {
			t.Errorf("the document lacks %s", w)
		}
	}
	for got, op := range ops {
		if !slices.Contains(want, got) {
			t.Errorf("the document has %s, which no route serves", got)
		}
		if op.OperationID == "" || op.Summary == "" {
			t.Errorf("%s: operationId and summary are required", got)
		}
		path := strings.SplitN(got, " ", 2)[1]
		scheme := "ApiKey"
		switch {
		case strings.HasPrefix(path, "/admin/"):
			scheme = "AdminToken"
		case !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v2/"):
			scheme = ""
		}
		if op.Security == nil || (scheme == "" && len(*op.Security) != 0) ||
			(scheme != "" && (len(*op.Security) != 1 || (*op.Security)[0][scheme] == nil)) {
			t.Errorf("%s: security should be %q", got, scheme)
		}
	}
}

// v1Status is the status version 1 answers each of its codes with.
func v1Status(t *testing.T) map[string][]int {
	out := map[string][]int{
		"INVALID_TRAINING_DATA": {400}, "INVALID_ORIGINAL_IMAGE": {400}, "INVALID_FACE_IMAGE": {400}, "BAD_REQUEST": {400},
	}
	for _, c := range core.AllCodes {
		e := toV1(&core.Error{Code: c})
		if !slices.Contains(out[e.Code], e.Status) {
			out[e.Code] = append(out[e.Code], e.Status)
		}
	}
	return out
}

// codesOf returns the error codes a response's schema allows, and whether it is the
// version 1 error body.
func codesOf(r *openapi3.Response) (codes []string, v1 bool) {
	mt := r.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, false
	}
	for _, part := range mt.Schema.Value.AllOf {
		if strings.HasSuffix(part.Ref, "/ErrorV1") {
			v1 = true
		}
		if e := part.Value.Properties["error"]; e != nil && e.Value.Properties["code"] != nil {
			for _, c := range e.Value.Properties["code"].Value.Enum {
				codes = append(codes, fmt.Sprint(c))
			}
		}
	}
	return codes, v1
}

func TestOpenAPIErrorCodesMatchTheirStatus(t *testing.T) {
	doc := loadDoc(t, OpenAPI)
	v1 := v1Status(t)
	seen := map[string]bool{}
	for name, op := range operations(doc) {
		for status, ref := range op.Responses.Map() {
			code, err := strconv.Atoi(status)
			if err != nil {
				t.Errorf("%s: response %q is not a status", name, status)
				continue
			}
			codes, isV1 := codesOf(ref.Value)
			if code >= 400 && len(codes) == 0 && !strings.HasPrefix(name, "GET /readyz") {
				t.Errorf("%s %d: an error answer must list its codes", name, code)
			}
			if isV1 != strings.Contains(name, " /v1/") && len(codes) > 0 {
				t.Errorf("%s %d: version 1 routes answer the version 1 error body, others version 2", name, code)
			}
			for _, c := range codes {
				seen[c] = true
				switch {
				case isV1 && !slices.Contains(v1[c], code):
					t.Errorf("%s: version 1 answers %s with %v, the document says %d", name, c, v1[c], code)
				case !isV1 && StatusOf(core.Code(c)) != code:
					t.Errorf("%s: %s is %d, the document says %d", name, c, StatusOf(core.Code(c)), code)
				case !isV1 && !slices.Contains(core.AllCodes, core.Code(c)):
					t.Errorf("%s: %s is not a code", name, c)
				}
			}
		}
		if op.Responses.Value("200") == nil {
			t.Errorf("%s: no success answer", name)
		}
	}
	var missing []string
	for _, c := range core.AllCodes {
		// INVALID_AMOUNT guards the store; the admin credits route checks the amount
		// first and answers VALIDATION_ERROR.
		if !seen[string(c)] && c != core.CodeInvalidAmount {
			missing = append(missing, string(c))
		}
	}
	for c := range v1 {
		if !seen[c] {
			missing = append(missing, "v1 "+c)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("codes no route of the document answers: %v", missing)
	}
}

// TestOpenAPIServed checks both renderings are served as they are, with ETags.
func TestOpenAPIServed(t *testing.T) {
	d, err := newOpenAPIDocs()
	if err != nil {
		t.Fatal(err)
	}
	for _, v30 := range []bool{false, true} {
		w := &headerRecorder{header: http.Header{}}
		d.serve(v30)(w, &http.Request{Header: http.Header{}})
		if w.status != 0 || w.header.Get("ETag") == "" || w.header.Get("Content-Type") != "application/json" || len(w.body) < 10000 {
			t.Fatalf("3.0=%v: %d %v %d bytes", v30, w.status, w.header, len(w.body))
		}
		again := &headerRecorder{header: http.Header{}}
		d.serve(v30)(again, &http.Request{Header: http.Header{"If-None-Match": {w.header.Get("ETag")}}})
		if again.status != http.StatusNotModified {
			t.Fatalf("3.0=%v: revalidation answered %d", v30, again.status)
		}
	}
}

type headerRecorder struct {
	header http.Header
	status int
	body   []byte
}

func (h *headerRecorder) Header() http.Header { return h.header }
func (h *headerRecorder) WriteHeader(s int)   { h.status = s }
func (h *headerRecorder) Write(b []byte) (int, error) {
	h.body = append(h.body, b...)
	return len(b), nil
}
