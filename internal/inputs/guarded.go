package inputs

import (
	"crypto/tls"
	"errors"
	"net/http"
	"time"
)

// GuardedClient returns an HTTP client for user-supplied URLs that are not images (webhook
// endpoints): the address guard of image fetches (private, loopback, link-local and
// reserved addresses refused on the address actually dialed, unless allowPrivate), no
// proxy from the environment, no redirect followed (a 3xx is the answer), and timeout
// over the whole exchange.
func GuardedClient(allowPrivate bool, timeout time.Duration, tlsConfig *tls.Config) *http.Client {
	c := newClient(Config{FetchTimeout: timeout, TLSConfig: tlsConfig}, addrGuard{allowAll: allowPrivate})
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// IsBlockedAddress reports whether err is the guard refusing the address dialed.
func IsBlockedAddress(err error) bool { return errors.Is(err, errBlockedAddress) }
