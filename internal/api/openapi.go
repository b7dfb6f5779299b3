package api

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
)

// OpenAPI is the API's OpenAPI 3.1 document, written by hand and kept true by tests: the
// routes table and the document list the same operations (openapi_test.go), and every
// request and answer of the end-to-end tests is validated against it.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPIDocs holds the document as served, in both renderings.
type openAPIDocs struct {
	v31, v30       []byte
	etag31, etag30 string
}

func newOpenAPIDocs() (*openAPIDocs, error) {
	v30, err := OpenAPI30(OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return &openAPIDocs{v31: OpenAPI, v30: v30, etag31: etagOf(OpenAPI), etag30: etagOf(v30)}, nil
}

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// serve answers GET /openapi.json and /openapi-3.0.json; no key is needed.
func (d *openAPIDocs) serve(v30 bool) http.HandlerFunc {
	body, etag := d.v31, d.etag31
	if v30 {
		body, etag = d.v30, d.etag30
	}
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		h.Set("Access-Control-Allow-Origin", "*") // a public description: tools elsewhere may read it
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(body)
	}
}

// OpenAPI30 renders a 3.1 document as OpenAPI 3.0.3 for tools that read no 3.1 yet (client
// generators such as oapi-codegen): a type list with "null" becomes the type and
// nullable, const a one-value enum, schema examples one example, and the 3.1-only
// top-level webhooks are left out. The document uses no other 3.1 construct (a test
// loads the rendering as 3.0).
//
// The rules of an object schema that combine its properties (exactly one of two fields,
// a field allowed only with some models: allOf, anyOf, oneOf, not beside properties)
// move to "x-constraints": generators turn such combinations into opaque unions and lose
// the fields. The 3.1 document keeps them, and the server applies them either way.
func OpenAPI30(doc31 []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(doc31, &doc); err != nil {
		return nil, err
	}
	doc["openapi"] = "3.0.3"
	delete(doc, "webhooks")
	delete(doc, "jsonSchemaDialect")
	if err := downgrade(doc); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// downgrade rewrites the 3.1 schema keywords found anywhere under v. Only values of the
// keywords' own shapes are touched (a property named "type" holds an object, never a
// list), so names in properties maps are safe.
func downgrade(v any) error {
	switch x := v.(type) {
	case map[string]any:
		if types, ok := x["type"].([]any); ok {
			var kept []any
			for _, t := range types {
				if t == "null" {
					x["nullable"] = true
				} else {
					kept = append(kept, t)
				}
			}
			if len(kept) != 1 {
				return fmt.Errorf("type %v has no OpenAPI 3.0 form", types)
			}
			x["type"] = kept[0]
		}
		if c, ok := x["const"]; ok {
			x["enum"] = []any{c}
			delete(x, "const")
		}
		if _, ok := x["properties"].(map[string]any); ok {
			rules := map[string]any{}
			for _, k := range []string{"allOf", "anyOf", "oneOf", "not"} {
				if r, ok := x[k]; ok {
					rules[k] = r
					delete(x, k)
				}
			}
			if len(rules) > 0 {
				x["x-constraints"] = rules
			}
		}
		if ex, ok := x["examples"].([]any); ok && len(ex) > 0 {
			x["example"] = ex[0]
			delete(x, "examples")
		}
		for _, c := range x {
			if err := downgrade(c); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range x {
			if err := downgrade(c); err != nil {
				return err
			}
		}
	}
	return nil
}
