package inputs

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

func TestParseDataURL(t *testing.T) {
	raw := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0xFB, 0xEF} // contains '+'/'/' in std base64
	std := base64.StdEncoding.EncodeToString(raw)
	tests := []struct {
		name string
		in   string
		mt   string
		code core.Code // empty: success
	}{
		{"standard padded", "data:image/jpeg;base64," + std, "image/jpeg", ""},
		{"standard raw", "data:image/jpeg;base64," + base64.RawStdEncoding.EncodeToString(raw), "image/jpeg", ""},
		{"url-safe padded", "data:image/jpeg;base64," + base64.URLEncoding.EncodeToString(raw), "image/jpeg", ""},
		{"url-safe raw", "data:image/jpeg;base64," + base64.RawURLEncoding.EncodeToString(raw), "image/jpeg", ""},
		{"case-insensitive", "DATA:Image/PNG;BASE64," + std, "image/png", ""},
		{"subtype with plus", "data:image/svg+xml;base64," + std, "image/svg+xml", ""},
		{"one byte", "data:image/png;base64,AA==", "image/png", ""},
		{"not a data url", "https://example.com/a.png", "", core.CodeInvalidImage},
		{"too short", "dat", "", core.CodeInvalidImage},
		{"no comma", "data:image/png;base64", "", core.CodeInvalidImage},
		{"not base64", "data:image/png," + std, "", core.CodeInvalidImage},
		{"other encoding", "data:image/png;utf8," + std, "", core.CodeInvalidImage},
		{"extra parameter", "data:image/png;name=a.png;base64," + std, "", core.CodeInvalidImage},
		{"text type", "data:text/plain;base64," + std, "", core.CodeInvalidImage},
		{"empty subtype", "data:image/;base64," + std, "", core.CodeInvalidImage},
		{"no media type", "data:;base64," + std, "", core.CodeInvalidImage},
		{"bad subtype char", "data:image/p g;base64," + std, "", core.CodeInvalidImage},
		{"empty payload", "data:image/png;base64,", "", core.CodeInvalidImage},
		{"mixed alphabets", "data:image/png;base64,ab+_", "", core.CodeInvalidImage},
		{"bad character", "data:image/png;base64,ab*d", "", core.CodeInvalidImage},
		{"whitespace", "data:image/png;base64,/9j/ 4AAQ", "", core.CodeInvalidImage},
		{"newline", "data:image/png;base64,/9j/\n4AAQ", "", core.CodeInvalidImage},
		{"three pads", "data:image/png;base64,A===", "", core.CodeInvalidImage},
		{"pad mid-string", "data:image/png;base64,AA==AA==", "", core.CodeInvalidImage},
		{"dangling char", "data:image/png;base64,AAAAA", "", core.CodeInvalidImage},
		{"non-zero trailing bits", "data:image/png;base64,AB==", "", core.CodeInvalidImage},
		{"padding on short group", "data:image/png;base64,AAA==", "", core.CodeInvalidImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt, data, err := ParseDataURL(tt.in)
			if tt.code != "" {
				wantCode(t, err, tt.code, "")
				return
			}
			if err != nil {
				t.Fatalf("ParseDataURL: %v", err)
			}
			if mt != tt.mt {
				t.Errorf("media type %q, want %q", mt, tt.mt)
			}
			if tt.name != "one byte" && !bytes.Equal(data, raw) {
				t.Errorf("data %x, want %x", data, raw)
			}
		})
	}
}

// TestDataURLSizeBeforeDecode checks the limit is judged from the payload length, exactly:
// a payload decoding to max bytes passes, one more byte is IMAGE_TOO_LARGE, and an
// oversize payload that is invalid base64 past the limit is still refused as too large
// (it was never decoded).
func TestDataURLSizeBeforeDecode(t *testing.T) {
	const max = 1000
	for _, n := range []int{max - 2, max - 1, max, max + 1, max + 2} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			s := "data:image/png;base64," + enc.EncodeToString(bytes.Repeat([]byte{0xFB}, n))
			_, data, err := parseDataURL(s, max)
			if n > max {
				wantCode(t, err, core.CodeImageTooLarge, "")
				continue
			}
			if err != nil || len(data) != n {
				t.Fatalf("n=%d: len %d, err %v", n, len(data), err)
			}
		}
	}
	bad := "data:image/png;base64," + strings.Repeat("A", 4*max) + "*AAA"
	wantCode(t, func() error { _, _, err := parseDataURL(bad, max); return err }(), core.CodeImageTooLarge, "")
}

func TestDecodedLenMatchesDecoder(t *testing.T) {
	for n := 0; n < 40; n++ {
		b := bytes.Repeat([]byte{0xA5}, n)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			s := enc.EncodeToString(b)
			if s == "" {
				continue
			}
			got, _, ok := decodedLen(s)
			if !ok || got != int64(n) {
				t.Fatalf("decodedLen(%q) = %d, %v; want %d", s, got, ok, n)
			}
		}
	}
}

func FuzzParseDataURL(f *testing.F) {
	for _, s := range []string{
		"data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;base64,/9j/4AAQ", "data:image/webp;base64," + webpLossy,
		"data:image/png;base64,-_-_", "data:image/png;base64,AA", "data:image/png;base64,A", "data:image/png;base64,===",
		"data:,", "data:image/png;base64,", "DATA:IMAGE/PNG;BASE64,AAAA", "data:image/png;base64,AA\n==",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mt, data, err := parseDataURL(s, 64)
		if err != nil {
			if c := core.CodeOf(err); c != core.CodeInvalidImage && c != core.CodeImageTooLarge {
				t.Fatalf("unexpected code %s", c)
			}
			return
		}
		if !strings.HasPrefix(mt, "image/") || len(data) > 64 {
			t.Fatalf("accepted %q -> %q, %d bytes", s, mt, len(data))
		}
		// Whatever was accepted must round-trip through one of the four alphabets.
		_, payload, _ := strings.Cut(s, ",")
		n, enc, ok := decodedLen(payload)
		if !ok || n != int64(len(data)) {
			t.Fatalf("length mismatch for %q", s)
		}
		if enc.EncodeToString(data) != payload {
			t.Fatalf("payload %q does not round-trip", payload)
		}
	})
}
