package blob

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key string
		ok  bool
	}{
		{"a.jpg", true},
		{"outputs/2026/01/0190a6b2-7c3e-7def-8abc-1234567890ab.jpg", true},
		{"A_b-C.9/x", true},
		{"file.tar.gz", true},
		{"", false},
		{"..", false},
		{"../etc/passwd", false},
		{"a/../b", false},
		{"a/./b", false},
		{".hidden", false},
		{"a/.tmp-123", false},
		{"/abs/path", false},
		{"trailing/", false},
		{"double//slash", false},
		{`back\slash`, false},
		{"space here", false},
		{"percent%2e", false},
		{"query?x", false},
		{"hash#x", false},
		{"ünïcode", false},
		{"nul\x00byte", false},
		{"colon:x", false},
		{strings.Repeat("a", maxKeyLen), true},
		{strings.Repeat("a", maxKeyLen+1), false},
	}
	for _, tt := range tests {
		err := ValidateKey(tt.key)
		if tt.ok && err != nil {
			t.Errorf("ValidateKey(%q) = %v, want nil", tt.key, err)
		}
		if !tt.ok && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", tt.key, err)
		}
	}
}

// FuzzValidateKey checks that every accepted key is a clean relative path.
func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"a.jpg", "a/b/c.png", "../x", "/x", `a\b`, "a//b", ".x", "a/..", "x y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key) != nil {
			return
		}
		if strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") || strings.Contains(key, "//") ||
			strings.Contains(key, "..") && strings.Contains("/"+key+"/", "/../") || strings.ContainsAny(key, `\ %?#:`) {
			t.Fatalf("accepted unsafe key %q", key)
		}
		for seg := range strings.SplitSeq(key, "/") {
			if seg == "" || seg[0] == '.' {
				t.Fatalf("accepted key %q with segment %q", key, seg)
			}
		}
	})
}
