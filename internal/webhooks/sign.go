// Package webhooks tells accounts of events by HTTP POST to their endpoint, signed as the
// Standard Webhooks specification says (https://www.standardwebhooks.com): deliveries are
// queue jobs, retried with backoff for a day, each attempt under the same webhook-id.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// SecretPrefix starts every signing secret; the base64 after it is the HMAC key.
const SecretPrefix = "whsec_"

// secretBytes is the length of a new secret's key (the specification asks 24 to 64).
const secretBytes = 32

// Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Tolerance is how far a delivery's timestamp may be from the receiver's clock before
// Verify refuses it (replayed messages).
const Tolerance = 5 * time.Minute

// NewSecret returns a fresh signing secret: whsec_ and 32 random bytes in base64.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// secretKey returns the HMAC key of a secret.
func secretKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("webhooks: a secret starts with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhooks: the secret's key is not base64")
	}
	return key, nil
}

// Sign returns the signature of one delivery, "v1," and the base64 HMAC-SHA256 of
// "id.timestamp.body" keyed by the secret's base64 part.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, ts.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers returns the headers of one delivery signed with every secret given (during a
// rotation, the new and the previous one: the signatures are space-separated).
func Headers(secrets []string, id string, ts time.Time, body []byte) (http.Header, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, id, ts, body)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
	}
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
	h.Set("Content-Type", "application/json")
	return h, nil
}

// Verify checks a delivery as a receiver does: its timestamp within Tolerance of now, and
// one of its signatures made with secret over its id, timestamp and body.
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	id, tsText := h.Get(HeaderID), h.Get(HeaderTimestamp)
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if id == "" || err != nil {
		return errors.New("webhooks: missing webhook-id or webhook-timestamp")
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return errors.New("webhooks: timestamp too far from now")
	}
	want, err := Sign(secret, id, time.Unix(ts, 0), body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(h.Get(HeaderSignature)) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("webhooks: no valid signature")
}

// MaxURLLength bounds an endpoint URL.
const MaxURLLength = 2048

// CheckURL says what is wrong with an endpoint URL, or nil: an absolute http:// or
// https:// URL with a host, without credentials, a fragment, whitespace or control
// characters. Where it points is checked at each delivery (the address guard).
func CheckURL(raw string) error {
	switch {
	case raw == "":
		return errors.New("the URL is empty")
	case len(raw) > MaxURLLength:
		return fmt.Errorf("the URL is longer than %d characters", MaxURLLength)
	case strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return errors.New("the URL contains whitespace or control characters")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("the URL does not parse")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("the URL must start with http:// or https://")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("the URL has no host")
	case u.User != nil:
		return errors.New("the URL must not carry credentials")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("the URL must not have a fragment")
	}
	return nil
}
