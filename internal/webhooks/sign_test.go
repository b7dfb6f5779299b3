package webhooks

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks specification's published test vector: any receiver library must
// verify what we sign.
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("Sign = %q, %v", got, err)
	}
}

func TestVerify(t *testing.T) {
	secret, err := NewSecret()
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) || len(secret) != len(SecretPrefix)+44 {
		t.Fatalf("NewSecret = %q, %v", secret, err)
	}
	other, _ := NewSecret()
	now := time.Now()
	body := []byte(`{"type":"custom.completed"}`)
	h, err := Headers([]string{secret, other}, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.Fields(h.Get(HeaderSignature))) != 2 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", h)
	}
	for _, s := range []string{secret, other} {
		if err := Verify(s, h, body, now); err != nil {
			t.Fatalf("either secret verifies: %v", err)
		}
	}
	third, _ := NewSecret()
	tampered := http.Header{}
	for k, v := range h {
		tampered[k] = v
	}
	tampered.Set(HeaderID, "msg_2")
	for name, check := range map[string]error{
		"wrong secret":     Verify(third, h, body, now),
		"other body":       Verify(secret, h, []byte(`{}`), now),
		"other id":         Verify(secret, tampered, body, now),
		"old timestamp":    Verify(secret, h, body, now.Add(Tolerance+time.Second)),
		"future":           Verify(secret, h, body, now.Add(-Tolerance-time.Second)),
		"no headers":       Verify(secret, http.Header{}, body, now),
		"malformed secret": func() error { _, err := Sign("whsec_%%%", "m", now, body); return err }(),
		"no prefix":        func() error { _, err := Sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "m", now, body); return err }(),
	} {
		if check == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://hooks.example.com/thumbforge": true,
		"http://127.0.0.1:9000/in?token=abc":   true,
		"HTTPS://Example.com/x":                true,
		"https://[2001:db8::1]:8443/":          true,
		"":                                     false,
		"ftp://example.com/":                   false,
		"file:///etc/passwd":                   false,
		"javascript:alert(1)":                  false,
		"//example.com/x":                      false,
		"https://":                             false,
		"https://:443/":                        false,
		"https://user:pass@example.com/":       false,
		"https://example.com/#x":               false,
		"https://example.com/a b":              false,
		"https://example.com/\n":               false,
		"https://example.com/" + strings.Repeat("a", MaxURLLength): false,
	} {
		if err := CheckURL(raw); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", raw, err)
		}
	}
}

// FuzzCheckURL: whatever the input, CheckURL does not panic, and what it accepts is an
// absolute http(s) URL with a host and nothing that would let it be read two ways.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/x", "http://[::1]:80/", "https://a@b/", "http://x/#", "https://%zz/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckURL(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
			strings.ContainsAny(raw, " \t\r\n#") {
			t.Fatalf("accepted %q", raw)
		}
	})
}
