// Package blob stores binary objects (generated images, training inputs) and hands out
// expiring links to them: FileStore keeps files in the data dir and signs its own links
// with HMAC; S3Store talks to any S3-compatible server and presigns with Signature V4.
// Both implement core.Blobs and pass the same conformance suite (blob/blobtest).
package blob

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidKey means a blob key is not a safe relative path.
var ErrInvalidKey = errors.New("invalid blob key")

// maxKeyLen keeps keys well inside file name and S3 key limits (1024 bytes).
const maxKeyLen = 512

// ValidateKey checks that key is a slash-separated relative path made of
// [A-Za-z0-9._-] segments. Keys become file paths and URL paths, so anything that could
// escape the store (.., absolute paths, backslashes) or need escaping is refused. A
// segment may not start with a dot: that keeps hidden and temporary files out of the key
// space.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	}
	if len(key) > maxKeyLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidKey, maxKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if !keyChar(key[i]) {
			return fmt.Errorf("%w: character %q at %d", ErrInvalidKey, key[i], i)
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("%w: empty path segment (leading, trailing or double slash)", ErrInvalidKey)
		case seg[0] == '.':
			return fmt.Errorf("%w: segment %q starts with a dot", ErrInvalidKey, seg)
		}
	}
	return nil
}

func keyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == '/'
}
