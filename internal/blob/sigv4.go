package blob

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AWS Signature Version 4, as the S3 API reference describes it ("Authenticating
// Requests: AWS Signature Version 4"), for the few requests S3Store makes.

const (
	sigAlgorithm    = "AWS4-HMAC-SHA256"
	amzDateFormat   = "20060102T150405Z"
	emptySHA256     = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	unsignedPayload = "UNSIGNED-PAYLOAD"
)

// sigv4 holds what every signature needs.
type sigv4 struct {
	accessKey, secretKey, sessionToken string
	region, service                    string
}

func (s sigv4) scope(t time.Time) string {
	return t.Format("20060102") + "/" + s.region + "/" + s.service + "/aws4_request"
}

func (s sigv4) signingKey(t time.Time) []byte {
	k := hmacSHA256([]byte("AWS4"+s.secretKey), t.Format("20060102"))
	k = hmacSHA256(k, s.region)
	k = hmacSHA256(k, s.service)
	return hmacSHA256(k, "aws4_request")
}

// signature signs a canonical request made at t.
func (s sigv4) signature(t time.Time, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	toSign := sigAlgorithm + "\n" + t.Format(amzDateFormat) + "\n" + s.scope(t) + "\n" + hex.EncodeToString(sum[:])
	return hex.EncodeToString(hmacSHA256(s.signingKey(t), toSign))
}

// sign adds the x-amz headers and the Authorization header to req. Every header already
// set on req is signed (plus host); headers the transport adds later are not.
func (s sigv4) sign(req *http.Request, payloadHash string, now time.Time) {
	now = now.UTC()
	req.Header.Set("X-Amz-Date", now.Format(amzDateFormat))
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if s.sessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", s.sessionToken)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string]string{"host": host}
	for name, vals := range req.Header {
		lname := strings.ToLower(name)
		if lname == "authorization" {
			continue
		}
		trimmed := make([]string, len(vals))
		for i, v := range vals {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		headers[lname] = strings.Join(trimmed, ",")
	}
	names := make([]string, 0, len(headers))
	for n := range headers {
		names = append(names, n)
	}
	slices.Sort(names)
	var canonHeaders strings.Builder
	for _, n := range names {
		canonHeaders.WriteString(n + ":" + headers[n] + "\n")
	}
	signed := strings.Join(names, ";")
	canonical := strings.Join([]string{
		req.Method, canonicalURI(req.URL), canonicalQuery(req.URL.Query()),
		canonHeaders.String(), signed, payloadHash,
	}, "\n")
	req.Header.Set("Authorization", sigAlgorithm+" Credential="+s.accessKey+"/"+s.scope(now)+
		", SignedHeaders="+signed+", Signature="+s.signature(now, canonical))
}

// presign returns u with query-string authentication for method, valid for expires from
// now. Only host is signed, so any client can follow the link.
func (s sigv4) presign(method string, u *url.URL, now time.Time, expires time.Duration) string {
	now = now.UTC()
	q := u.Query()
	q.Set("X-Amz-Algorithm", sigAlgorithm)
	q.Set("X-Amz-Credential", s.accessKey+"/"+s.scope(now))
	q.Set("X-Amz-Date", now.Format(amzDateFormat))
	q.Set("X-Amz-Expires", strconv.FormatInt(int64(expires/time.Second), 10))
	q.Set("X-Amz-SignedHeaders", "host")
	if s.sessionToken != "" {
		q.Set("X-Amz-Security-Token", s.sessionToken)
	}
	query := canonicalQuery(q)
	canonical := strings.Join([]string{
		method, canonicalURI(u), query, "host:" + u.Host + "\n", "host", unsignedPayload,
	}, "\n")
	signed := *u
	signed.RawPath = canonicalURI(u)
	signed.RawQuery = query + "&X-Amz-Signature=" + s.signature(now, canonical)
	return signed.String()
}

// canonicalURI is the path encoded once, slashes kept (S3 does not double-encode). Callers
// send the same bytes by setting URL.RawPath to it (see S3Store.objectURL).
func canonicalURI(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return uriEncode(u.Path, false)
}

// canonicalQuery sorts parameters by name, then value, each URI-encoded.
func canonicalQuery(q url.Values) string {
	type pair struct{ k, v string }
	pairs := make([]pair, 0, len(q))
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, pair{uriEncode(k, true), uriEncode(v, true)})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.k, b.k); c != 0 {
			return c
		}
		return strings.Compare(a.v, b.v)
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k + "=" + p.v)
	}
	return b.String()
}

// uriEncode percent-encodes everything but the unreserved characters (and "/" unless
// encodeSlash), with upper-case hex, as SigV4 requires; url.QueryEscape differs (+, ~).
func uriEncode(s string, encodeSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/' && !encodeSlash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}
