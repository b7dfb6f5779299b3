package api

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// splitObject splits a JSON object, already known to be valid JSON (json.Valid or a
// successful json.Unmarshal), into its members. The values are sub-slices of data, not
// copies: a 30 MB data URL is held once. Every object inside it is checked too; the first
// key an object repeats (compared after unescaping, as a decoder sees it) is returned as
// a path such as "a[1].k", with the members found so far.
func splitObject(data []byte) (map[string]json.RawMessage, string) {
	s := objScanner{data: data}
	s.ws()
	members := map[string]json.RawMessage{}
	dup := s.object("", members)
	return members, dup
}

// objScanner walks valid JSON without allocating for values.
type objScanner struct {
	data []byte
	i    int
}

func (s *objScanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips one value at s.i and returns the path of the first repeated key inside it.
func (s *objScanner) value(path string) string {
	switch s.data[s.i] {
	case '{':
		return s.object(path, nil)
	case '[':
		return s.array(path)
	case '"':
		s.str()
	default: // number, true, false, null
		for s.i < len(s.data) && bytes.IndexByte([]byte(",]} \t\n\r"), s.data[s.i]) < 0 {
			s.i++
		}
	}
	return ""
}

// object skips an object at s.i; when members is not nil it also collects them.
func (s *objScanner) object(path string, members map[string]json.RawMessage) string {
	s.i++ // '{'
	seen := map[string]struct{}{}
	dup := ""
	for {
		s.ws()
		if s.data[s.i] == '}' {
			s.i++
			return dup
		}
		key := unquote(s.str())
		s.ws()
		s.i++ // ':'
		s.ws()
		start := s.i
		inner := s.value(join(path, key))
		if _, again := seen[key]; again && dup == "" {
			dup = join(path, key)
		}
		if dup == "" {
			dup = inner
		}
		seen[key] = struct{}{}
		if members != nil {
			members[key] = s.data[start:s.i:s.i]
		}
		s.ws()
		if s.data[s.i] == ',' {
			s.i++
		}
	}
}

func (s *objScanner) array(path string) string {
	s.i++ // '['
	dup := ""
	for n := 0; ; n++ {
		s.ws()
		if s.data[s.i] == ']' {
			s.i++
			return dup
		}
		if inner := s.value(path + "[" + strconv.Itoa(n) + "]"); dup == "" {
			dup = inner
		}
		s.ws()
		if s.data[s.i] == ',' {
			s.i++
		}
	}
}

// str returns the string token at s.i, quotes included.
func (s *objScanner) str() []byte {
	start := s.i
	s.i++ // opening quote
	for s.data[s.i] != '"' {
		if s.data[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	s.i++
	return s.data[start:s.i]
}

// unquote decodes a string token; only keys with escapes take the decoder's path.
func unquote(tok []byte) string {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	var k string
	_ = json.Unmarshal(tok, &k) // the token is valid: checked before scanning
	return k
}

// join names a member of the object at path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
