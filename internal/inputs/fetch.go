package inputs

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/url"

	"thumbforge/internal/core"
)

var _ core.ImageLoader = (*Loader)(nil)

// Load fetches or decodes ref and returns the decoded image. Errors are INVALID_IMAGE or
// IMAGE_TOO_LARGE naming ref.Field, or the context's error when ctx ended.
func (l *Loader) Load(ctx context.Context, ref core.ImageRef) (image.Image, error) {
	var data []byte
	switch {
	case ref.URL != "":
		b, err := l.fetch(ctx, ref.URL, l.cfg.MaxBytes, ref.Field)
		if err != nil {
			return nil, err
		}
		data = b
	case ref.Data != "":
		_, b, err := parseDataURL(ref.Data, l.cfg.MaxBytes)
		if err != nil {
			return nil, withField(err, ref.Field)
		}
		data = b
	default:
		return nil, invalidImage(ref.Field, "no image was given", nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.Decode(ctx, data, ref.Field)
}

// FetchBytes downloads rawURL through the SSRF-safe client, reading at most max bytes
// (max <= 0 means the Loader's MaxBytes). Errors are core errors without a field.
func (l *Loader) FetchBytes(ctx context.Context, rawURL string, max int64) ([]byte, error) {
	if max <= 0 {
		max = l.cfg.MaxBytes
	}
	return l.fetch(ctx, rawURL, max, "")
}

// fetch GETs rawURL and returns its body, refusing bodies over max bytes whatever
// Content-Length claims.
func (l *Loader) fetch(ctx context.Context, rawURL string, max int64, field string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, invalidImage(field, "the image URL must be an http or https URL", err)
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, invalidImage(field, "the image URL must be an http or https URL", err)
	}
	req.Header.Set("Accept", "image/*")
	req.Header.Set("User-Agent", "thumbforge")
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, l.fetchError(ctx, field, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, invalidImage(field, fmt.Sprintf("%s (HTTP status %d)", msgFetchFailed, resp.StatusCode), nil)
	}
	if resp.ContentLength > max {
		return nil, tooLarge(field, "the image is larger than "+sizeText(max))
	}
	// One byte past the limit tells "exactly max" from "more", without trusting headers.
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, l.fetchError(ctx, field, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(field, "the image is larger than "+sizeText(max))
	}
	return data, nil
}

// fetchError turns a transport error into a public one; the cause stays for the log.
func (l *Loader) fetchError(ctx context.Context, field string, err error) error {
	var re *errRedirect
	switch {
	case errors.Is(err, errBlockedAddress):
		return invalidImage(field, msgFetchFailed, err)
	case errors.As(err, &re):
		return invalidImage(field, msgFetchFailed+" ("+re.reason+")", err)
	case ctx.Err() == context.DeadlineExceeded || isTimeout(err):
		return invalidImage(field, msgFetchFailed+" (timed out)", err)
	case ctx.Err() != nil:
		// The caller's context ended (client gone): let the caller classify it.
		return ctx.Err()
	}
	return invalidImage(field, msgFetchFailed, err)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
