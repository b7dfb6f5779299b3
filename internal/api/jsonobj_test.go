package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
	"unicode/utf8"

	"thumbforge/internal/core"
)

func TestDuplicateKeysRefused(t *testing.T) {
	cases := []struct {
		name, body, field string
	}{
		{"top level", `{"prompt":"a","prompt":"b"}`, "prompt"},
		{"escaped spelling of the same key", `{"prompt":"a","pr\u006fmpt":"b"}`, "prompt"},
		{"nested object", `{"a":{"x":1,"x":2}}`, "a.x"},
		{"object in an array", `{"a":[1,{"k":1,"k":null}]}`, "a[1].k"},
		{"deep", `{"a":[[{"b":{"c":1,"c":1}}]]}`, "a[0][0].b.c"},
		{"after other keys", `{"model":"mdl_4","format":"1:1","model":"mdl_3"}`, "model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseBody([]byte(c.body))
			e := core.AsError(err)
			if e == nil || e.Code != core.CodeValidation || len(e.Details) != 1 || e.Details[0].Field != c.field {
				t.Fatalf("parseBody(%s) = %v, want VALIDATION_ERROR naming %q", c.body, err, c.field)
			}
		})
	}
}

func TestDistinctKeysAccepted(t *testing.T) {
	for _, js := range []string{
		`{"prompt":"a","Prompt":"b"}`, // keys are case-sensitive: these differ
		`{"a":{"x":1},"b":{"x":2}}`,   // the same key in sibling objects
		`{"a":[{"k":1},{"k":2}]}`,     // and in elements of an array
		`{"a":"{\"k\":1,\"k\":2}"}`,   // a string that looks like an object
		` {"a" : [ ] , "b" : { } } `,
	} {
		b, err := parseBody([]byte(js))
		if err != nil {
			t.Errorf("parseBody(%s): %v", js, err)
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(js), &want); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if !bytes.Equal(b.raw[k], v) {
				t.Errorf("%s: field %q = %s, want %s", js, k, b.raw[k], v)
			}
		}
	}
}

// FuzzParseBodyKeys checks parseBody against encoding/json: it accepts exactly the JSON objects
// without a repeated key, and then gives the same fields.
func FuzzParseBodyKeys(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"\u0063"}]}}`, `[1]`, `{"a":"\ud800"}`, `{"a" :1 }x`, `{"\u00e9":1,"é":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBody(data)
		dup, ok := firstDuplicate(data)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(bytes.TrimSpace(data), &want)
		switch {
		case err == nil && (werr != nil || want == nil):
			t.Fatalf("accepted %q, which encoding/json refuses (%v)", data, werr)
		case err == nil && ok && dup:
			t.Fatalf("accepted %q, which repeats a key", data)
		case err != nil && werr == nil && want != nil && ok && !dup && utf8.Valid(data):
			t.Fatalf("refused %q: %v", data, err)
		}
		if err != nil {
			return
		}
		if len(b.raw) != len(want) {
			t.Fatalf("%q: %d fields, want %d", data, len(b.raw), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(b.raw[k], v) {
				t.Fatalf("%q: field %q = %s, want %s", data, k, b.raw[k], v)
			}
		}
	})
}

// firstDuplicate is a slow reference: it walks the tokens of data and reports whether an
// object repeats a key; ok is false when data is not valid JSON.
func firstDuplicate(data []byte) (dup, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys  map[string]bool
		isObj bool
		inKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return dup, true
		}
		if err != nil {
			return false, false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.isObj && top.inKey
		if top != nil && top.isObj {
			top.inKey = !top.inKey
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, isObj: true, inKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].isObj {
					stack[len(stack)-1].inKey = true
				}
			}
		case string:
			if isKey {
				if top.keys[v] {
					dup = true
				}
				top.keys[v] = true
			}
		}
	}
}

func BenchmarkParseBody(b *testing.B) {
	payload := bytes.Repeat([]byte("A"), 20<<20)
	body := []byte(`{"model":"mdl_4","format":"16:9","image_base64":"data:image/png;base64,` + string(payload) + `","prompt":` + strconv.Quote("hello") + `}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseBody(body); err != nil {
			b.Fatal(err)
		}
	}
}
