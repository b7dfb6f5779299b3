package blob

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ErrBadSignature means a file link was not signed by this store's secret (or is malformed).
var ErrBadSignature = errors.New("bad link signature")

// ErrExpired means a file link was signed but its expiry has passed.
var ErrExpired = errors.New("link expired")

// SecretFile is the name of the link-signing secret inside the data dir.
const SecretFile = "blob-url-secret"

const secretLen = 32

// URL returns {PublicURL}/files/{key}?expires={unix}&sig={hmac}, valid until expires.
func (s *FileStore) URL(_ context.Context, key string, expires time.Time) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	exp := strconv.FormatInt(expires.Unix(), 10)
	q := url.Values{"expires": {exp}, "sig": {s.sign(key, exp)}}
	return s.baseURL + "/files/" + key + "?" + q.Encode(), nil
}

// sign is hex(HMAC-SHA256(secret, key + "\n" + expires)); the newline cannot occur in a
// key, so no two (key, expires) pairs share a message.
func (s *FileStore) sign(key, expires string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(key + "\n" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a link's signature in constant time, then its expiry against the
// store's clock. It returns ErrBadSignature or ErrExpired.
func (s *FileStore) Verify(key, expires, sig string) error {
	_, err := s.verify(key, expires, sig)
	return err
}

// verify is Verify that also returns how long the link has left.
func (s *FileStore) verify(key, expires, sig string) (time.Duration, error) {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: expires %q is not a unix time", ErrBadSignature, expires)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return 0, fmt.Errorf("%w: not hex", ErrBadSignature)
	}
	want, _ := hex.DecodeString(s.sign(key, expires))
	if !hmac.Equal(got, want) {
		return 0, ErrBadSignature
	}
	left := time.Unix(exp, 0).Sub(s.now())
	if left <= 0 {
		return 0, ErrExpired
	}
	return left, nil
}

// LoadOrCreateSecret returns the link-signing secret kept in dir, creating a random
// 32-byte one (mode 0600) the first time. Keeping it on disk lets links survive restarts
// and lets admin commands sign links the server accepts.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	p := filepath.Join(dir, SecretFile)
	if b, err := readSecret(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: secret dir: %w", err)
	}
	secret := make([]byte, secretLen)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("blob: secret: %w", err)
	}
	// Write a temp file and hard-link it into place: Link fails if the file exists, so
	// two processes starting together both end up with whichever secret won.
	f, err := os.CreateTemp(dir, ".secret-*")
	if err != nil {
		return nil, fmt.Errorf("blob: secret: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(secret)
	serr := f.Sync()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return nil, fmt.Errorf("blob: secret: %w", err)
	}
	if err := os.Link(tmp, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("blob: secret: %w", err)
	}
	return readSecret(p)
}

func readSecret(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(b) != secretLen {
		return nil, fmt.Errorf("blob: secret file %s has %d bytes, want %d", p, len(b), secretLen)
	}
	return b, nil
}
