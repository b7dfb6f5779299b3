package openaifake

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed openapi-images.json
var specJSON []byte

// spec is the loaded OpenAPI subset and its router.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

func loadSpec() (*spec, error) {
	doc, err := openapi3.NewLoader().LoadFromData(specJSON)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI subset: %w", err)
	}
	// The document's server is https://api.openai.com/v1; the fake serves the same paths
	// under /v1 on any host.
	doc.Servers = openapi3.Servers{{URL: "/v1"}}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &spec{doc: doc, router: r}, nil
}

// form is a request body as the API reads it: fields by name, files as bytes.
type form struct {
	fields map[string]any      // JSON values, or the typed multipart text fields
	files  map[string][][]byte // multipart files by field name ("image[]" read as "image")
}

// problem is a refusal in the API's error shape.
type problem struct {
	status  int
	message string
	param   string
	code    string
}

func (p *problem) Error() string { return p.message }

func invalid(param, code, format string, args ...any) *problem {
	return &problem{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...), param: param, code: code}
}

// check validates r against the document and returns its body as a form. The body must
// already be buffered (the fake reads it once, to log it).
func (s *spec) check(r *http.Request, body []byte) (*form, *problem) {
	route, params, err := s.router.FindRoute(r)
	if err != nil {
		return nil, &problem{status: http.StatusNotFound, message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"}
	}
	multipartBody := strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data")
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError: true, ExcludeRequestBody: multipartBody}}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return nil, invalid("", "", "%s", oneLine(err))
	}
	if r.Method != http.MethodPost {
		return &form{}, nil
	}
	schema := route.Operation.RequestBody.Value.Content.Get(mediaType(r)).Schema.Value
	f := &form{fields: map[string]any{}, files: map[string][][]byte{}}
	if multipartBody {
		if p := f.readMultipart(r, body, schema); p != nil {
			return nil, p
		}
		if err := schema.VisitJSON(f.schemaView(), openapi3.MultiErrors()); err != nil {
			return nil, invalid("", "", "%s", oneLine(err))
		}
	} else if err := json.Unmarshal(body, &f.fields); err != nil {
		return nil, invalid("", "", "We could not parse the JSON body of your request.")
	}
	for name := range f.fields {
		if _, ok := schema.Properties[name]; !ok {
			return nil, invalid(name, "unknown_parameter", "Unknown parameter: '%s'.", name)
		}
	}
	for name := range f.files {
		if _, ok := schema.Properties[name]; !ok {
			return nil, invalid(name, "unknown_parameter", "Unknown parameter: '%s'.", name)
		}
	}
	return f, nil
}

func mediaType(r *http.Request) string {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt
}

// readMultipart reads the parts: files by name (the "[]" of repeated fields dropped),
// text fields converted to the type the schema gives them.
func (f *form) readMultipart(r *http.Request, body []byte, schema *openapi3.Schema) *problem {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return invalid("", "", "Invalid multipart body: no boundary.")
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return invalid("", "", "Invalid multipart body: %v", err)
		}
		name := strings.TrimSuffix(part.FormName(), "[]")
		data, err := io.ReadAll(part)
		if err != nil {
			return invalid(name, "", "Invalid multipart body: %v", err)
		}
		if part.FileName() != "" {
			f.files[name] = append(f.files[name], data)
			continue
		}
		v, p := typed(name, string(data), schema.Properties[name])
		if p != nil {
			return p
		}
		f.fields[name] = v
	}
}

// typed converts a text field to the JSON type its schema (or the first typed branch
// of an anyOf) declares.
func typed(name, text string, ref *openapi3.SchemaRef) (any, *problem) {
	typ := ""
	if ref != nil {
		sch := ref.Value
		for typ == "" && sch != nil {
			switch {
			case sch.Type != nil && len(sch.Type.Slice()) > 0:
				typ = sch.Type.Slice()[0]
			case len(sch.AnyOf) > 0 && sch.AnyOf[0].Value != nil:
				sch = sch.AnyOf[0].Value
			default:
				sch = nil
			}
		}
	}
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, invalid(name, "invalid_type", "Invalid type for '%s': expected an integer, but got a string instead.", name)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, invalid(name, "invalid_type", "Invalid type for '%s': expected a decimal, but got a string instead.", name)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, invalid(name, "invalid_type", "Invalid type for '%s': expected a boolean, but got a string instead.", name)
		}
		return b, nil
	}
	return text, nil
}

// schemaView is the body as the schema sees it: files as strings (format binary), a
// single image as a string and several as an array.
func (f *form) schemaView() map[string]any {
	out := map[string]any{}
	for k, v := range f.fields {
		out[k] = v
	}
	for k, files := range f.files {
		if len(files) == 1 && k != "image" {
			out[k] = string(files[0])
			continue
		}
		arr := make([]any, len(files))
		for i, b := range files {
			arr[i] = string(b)
		}
		out[k] = arr
	}
	return out
}

// oneLine shortens kin-openapi's error (which dumps the schema) to its first lines.
func oneLine(err error) string {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "Schema:") || strings.HasPrefix(l, "Value:") {
			continue
		}
		if strings.HasPrefix(l, "{") || strings.HasPrefix(l, "\"") || strings.HasPrefix(l, "}") || strings.HasPrefix(l, "]") || strings.HasPrefix(l, "[") {
			continue
		}
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// str returns a string field, "" when absent.
func (f *form) str(name string) string {
	s, _ := f.fields[name].(string)
	return s
}
