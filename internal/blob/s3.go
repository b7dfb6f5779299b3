package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"thumbforge/internal/core"
)

// maxPresign is the longest validity S3 accepts for a presigned URL (7 days).
const maxPresign = 7 * 24 * time.Hour

// S3Store keeps blobs in a bucket of an S3-compatible server and hands out presigned
// GET URLs. It is a small client of its own (SigV4 over net/http) for the four calls it
// needs, instead of an SDK.
type S3Store struct {
	client    *http.Client
	sig       sigv4
	scheme    string
	host      string // endpoint host[:port]
	basePath  string // endpoint path prefix, without a trailing slash
	bucket    string
	pathStyle bool
	now       func() time.Time
}

var _ core.Blobs = (*S3Store)(nil)

// NewS3Store opens s3://BUCKET?endpoint=URL&region=R&use_path_style=true&disable_https=true.
// Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN),
// or from access_key / secret_key parameters. Without endpoint it talks to AWS in region.
// Opening does no I/O (ctx is unused); Ping checks the bucket.
func NewS3Store(ctx context.Context, rawURL string) (*S3Store, error) {
	_ = ctx
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 url: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("blob: s3 url %q: want s3://BUCKET?options", redactURL(u))
	}
	q := u.Query()
	for name := range q {
		switch name {
		case "endpoint", "region", "use_path_style", "disable_https", "access_key", "secret_key":
		default:
			return nil, fmt.Errorf("blob: s3 url: unknown parameter %q", name)
		}
	}
	pathStyle, err := boolParam(q, "use_path_style")
	if err != nil {
		return nil, err
	}
	noHTTPS, err := boolParam(q, "disable_https")
	if err != nil {
		return nil, err
	}
	s := &S3Store{
		client:    &http.Client{},
		bucket:    u.Host,
		pathStyle: pathStyle,
		now:       time.Now,
		sig: sigv4{
			accessKey:    firstNonEmpty(q.Get("access_key"), os.Getenv("AWS_ACCESS_KEY_ID")),
			secretKey:    firstNonEmpty(q.Get("secret_key"), os.Getenv("AWS_SECRET_ACCESS_KEY")),
			region:       firstNonEmpty(q.Get("region"), os.Getenv("AWS_REGION"), "us-east-1"),
			service:      "s3",
			sessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		},
		scheme: "https",
	}
	if q.Get("access_key") != "" {
		s.sig.sessionToken = "" // an env token belongs to the env keys
	}
	if s.sig.accessKey == "" || s.sig.secretKey == "" {
		return nil, fmt.Errorf("blob: s3: no credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	}
	if noHTTPS {
		s.scheme = "http"
	}
	if ep := q.Get("endpoint"); ep != "" {
		if !strings.Contains(ep, "://") {
			ep = s.scheme + "://" + ep
		}
		e, err := url.Parse(ep)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("blob: s3 endpoint %q is not an http(s) URL", q.Get("endpoint"))
		}
		s.scheme, s.host, s.basePath = e.Scheme, e.Host, strings.TrimRight(e.Path, "/")
	} else {
		s.host = "s3." + s.sig.region + ".amazonaws.com"
	}
	return s, nil
}

func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("blob: s3 url: %s=%q is not a boolean", name, v)
	}
	return b, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// redactURL keeps secret_key out of error messages.
func redactURL(u *url.URL) string {
	c := *u
	q := c.Query()
	if q.Has("secret_key") {
		q.Set("secret_key", "REDACTED")
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// objectURL addresses key (or the bucket, when key is empty) path- or host-style.
func (s *S3Store) objectURL(key string) *url.URL {
	u := &url.URL{Scheme: s.scheme, Host: s.host, Path: s.basePath + "/"}
	if s.pathStyle {
		u.Path += s.bucket
		if key != "" {
			u.Path += "/" + key
		}
	} else {
		u.Host = s.bucket + "." + s.host
		u.Path += key
	}
	u.RawPath = canonicalURI(u)
	return u
}

// do sends one signed request and returns the response, or an *s3Error for any status
// outside ok.
func (s *S3Store) do(ctx context.Context, method, key string, body []byte, header http.Header, ok ...int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.objectURL(key).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.ContentLength = int64(len(body))
	if body == nil {
		req.Body = http.NoBody
	}
	for k, v := range header {
		req.Header[k] = v
	}
	hash := emptySHA256
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		hash = hex.EncodeToString(sum[:])
	}
	s.sig.sign(req, hash, s.now())
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 %s %s: %w", method, key, err)
	}
	for _, code := range ok {
		if resp.StatusCode == code {
			return resp, nil
		}
	}
	defer resp.Body.Close()
	return nil, readS3Error(method, key, resp)
}

// s3Error is an S3 error response: the HTTP status and S3's code and message.
type s3Error struct {
	Method, Key string
	Status      int
	Code        string `xml:"Code"`
	Message     string `xml:"Message"`
}

func (e *s3Error) Error() string {
	return fmt.Sprintf("blob: s3 %s %q: %d %s: %s", e.Method, e.Key, e.Status, e.Code, e.Message)
}

func readS3Error(method, key string, resp *http.Response) error {
	e := &s3Error{}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	xml.Unmarshal(b, e) // HEAD and some errors have no body: status alone then
	e.Method, e.Key, e.Status = method, key, resp.StatusCode
	return e
}

// Put uploads data under key with its content type (served back on presigned GETs).
func (s *S3Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	resp, err := s.do(ctx, http.MethodPut, key, data, h, http.StatusOK)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// Get downloads key, or returns core.ErrNotFound.
func (s *S3Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	resp, err := s.do(ctx, http.MethodGet, key, nil, nil, http.StatusOK)
	if err != nil {
		if e, ok := err.(*s3Error); ok && e.Status == http.StatusNotFound && e.Code != "NoSuchBucket" {
			return nil, fmt.Errorf("%w: %w", core.ErrNotFound, err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 GET %s: %w", key, err)
	}
	return data, nil
}

// Delete removes key; a missing key is not an error (S3 itself does not tell).
func (s *S3Store) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	resp, err := s.do(ctx, http.MethodDelete, key, nil, nil, http.StatusNoContent, http.StatusOK)
	if err != nil {
		if e, ok := err.(*s3Error); ok && e.Status == http.StatusNotFound && e.Code != "NoSuchBucket" {
			return nil
		}
		return err
	}
	return resp.Body.Close()
}

// URL presigns a GET of key valid until expires (at least 1 s, at most 7 days).
func (s *S3Store) URL(_ context.Context, key string, expires time.Time) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	now := s.now()
	d := expires.Sub(now)
	d = max(time.Second, min(maxPresign, (d+time.Second-1).Truncate(time.Second)))
	return s.sig.presign(http.MethodGet, s.objectURL(key), now, d), nil
}

// Ping checks that the bucket exists and the credentials open it (HEAD bucket).
func (s *S3Store) Ping(ctx context.Context) error {
	resp, err := s.do(ctx, http.MethodHead, "", nil, nil, http.StatusOK)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
