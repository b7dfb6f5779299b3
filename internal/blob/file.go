package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"thumbforge/internal/core"
)

// FileConfig configures a FileStore.
type FileConfig struct {
	// Dir holds the files; it is created if missing.
	Dir string
	// PublicURL is where thumbforge is reached from outside, e.g. http://127.0.0.1:8080.
	PublicURL string
	// Secret is the HMAC key that signs links (see LoadOrCreateSecret).
	Secret []byte
	// Now is the clock for link expiry; time.Now when nil.
	Now func() time.Time
}

// minSecretLen refuses secrets too short to resist guessing.
const minSecretLen = 16

// Validate reports what is wrong with the configuration.
func (c FileConfig) Validate() error {
	var problems []string
	if c.Dir == "" {
		problems = append(problems, "Dir is empty")
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		problems = append(problems, fmt.Sprintf("PublicURL %q is not an absolute http(s) URL", c.PublicURL))
	} else if u.RawQuery != "" || u.Fragment != "" {
		problems = append(problems, fmt.Sprintf("PublicURL %q has a query or fragment", c.PublicURL))
	}
	if len(c.Secret) < minSecretLen {
		problems = append(problems, fmt.Sprintf("Secret has %d bytes, need at least %d", len(c.Secret), minSecretLen))
	}
	if len(problems) > 0 {
		return fmt.Errorf("blob: file store config: %s", strings.Join(problems, "; "))
	}
	return nil
}

// FileStore keeps blobs as files under a directory and serves them at HMAC-signed,
// expiring URLs (see ServeFiles).
type FileStore struct {
	dir     string
	baseURL string
	secret  []byte
	now     func() time.Time
}

var _ core.Blobs = (*FileStore)(nil)

// NewFileStore validates cfg and creates the directory.
func NewFileStore(cfg FileConfig) (*FileStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("blob: create dir: %w", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &FileStore{
		dir:     cfg.Dir,
		baseURL: strings.TrimRight(cfg.PublicURL, "/"),
		secret:  append([]byte(nil), cfg.Secret...),
		now:     now,
	}, nil
}

func (s *FileStore) path(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// Put writes data under key atomically: readers see the old bytes or the new, never a
// partial file. The content type is not stored; ServeFiles derives it from the extension.
func (s *FileStore) Put(ctx context.Context, key string, data []byte, contentType string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	// The temp name starts with a dot, which no valid key segment does, so it never
	// shadows a blob.
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	// Sync before rename so a crash cannot leave a renamed but empty file.
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	return nil
}

// Get returns the bytes under key, or core.ErrNotFound.
func (s *FileStore) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		if notFound(err) {
			return nil, fmt.Errorf("blob: get %s: %w", key, core.ErrNotFound)
		}
		return nil, fmt.Errorf("blob: get %s: %w", key, err)
	}
	return data, nil
}

// notFound is true for a missing file, and for a key that names a directory (a prefix
// of other keys), which is not a blob either.
func notFound(err error) bool {
	var pe *fs.PathError
	return errors.Is(err, fs.ErrNotExist) || errors.As(err, &pe) && errors.Is(pe.Err, syscall.EISDIR)
}

// Delete removes key. Deleting a missing key is not an error, as with S3.
func (s *FileStore) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// Ping checks that the directory is writable.
func (s *FileStore) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".ping-*")
	if err != nil {
		return fmt.Errorf("blob: dir not writable: %w", err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("blob: dir not writable: %w", err)
	}
	return nil
}
