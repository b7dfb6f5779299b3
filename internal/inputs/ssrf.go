package inputs

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// errBlockedAddress is returned by the dialer's Control hook for refused addresses.
var errBlockedAddress = errors.New("inputs: address is private or reserved")

// errRedirect is returned by CheckRedirect; the message says which rule was broken.
type errRedirect struct{ reason string }

func (e *errRedirect) Error() string { return "inputs: redirect refused: " + e.reason }

// blockedPrefixes are the non-public ranges a fetch must never reach, beyond what the
// netip predicates (loopback, private, link-local, multicast, unspecified) already cover.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast (deprecated)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated), :: and ::1
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped: never a real peer's address
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215): the operator's own routes
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments: Teredo, benchmarking, ...
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation (RFC 9637)
	netip.MustParsePrefix("5f00::/16"),       // SRv6 segment identifiers (RFC 9602)
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// addrGuard decides whether a dialed address may be reached.
type addrGuard struct {
	allowAll bool
	allow    []netip.Prefix
}

// allowed reports whether a may be dialed.
func (g addrGuard) allowed(a netip.Addr) bool {
	if g.allowAll {
		return true
	}
	a = a.WithZone("")
	for _, p := range g.allow {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return true
		}
	}
	return isPublic(a)
}

// isPublic reports whether a is a globally routable unicast address. IPv4-mapped and
// -translated addresses, local-use NAT64 and Teredo are refused outright; the well-known
// NAT64 prefix and 6to4 are judged by the IPv4 address they embed, so none of them can be
// used to smuggle a private IPv4 past the check.
func isPublic(a netip.Addr) bool {
	a = a.WithZone("")
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		a.IsMulticast() {
		return false
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return isPublic(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(a):
			return isPublic(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	return true
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// control runs after the socket is created and before connect: the address here is the
// one actually dialed, so DNS answers (rebinding included) and every redirect hop pass
// through it.
func (g addrGuard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable %q", errBlockedAddress, address)
	}
	if !g.allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", errBlockedAddress, ap.Addr())
	}
	return nil
}

// newClient returns the fetch client: guarded dialer, no environment proxy (a proxy would
// dial on our behalf and bypass the guard), bounded redirects and time.
func newClient(cfg Config, g addrGuard) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.FetchTimeout, Control: g.control}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        cfg.TLSConfig,
		TLSHandshakeTimeout:    cfg.FetchTimeout,
		ResponseHeaderTimeout:  cfg.FetchTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
		// Images do not compress; transparent gzip would only add a decompression path.
		DisableCompression: true,
	}
	maxRedirects := cfg.MaxRedirects
	if maxRedirects < 0 {
		maxRedirects = 0
	}
	return &http.Client{
		Transport: tr,
		Timeout:   cfg.FetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return &errRedirect{fmt.Sprintf("more than %d redirects", maxRedirects)}
			}
			switch req.URL.Scheme {
			case "http", "https":
			default:
				return &errRedirect{"redirect to a non-http(s) URL"}
			}
			// A downgrade would let an https-only input be served over plain http.
			if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme == "http" {
				return &errRedirect{"redirect from https to http"}
			}
			return nil
		},
	}
}
