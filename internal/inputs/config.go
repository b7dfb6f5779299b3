// Package inputs turns client-supplied image inputs into decoded images: SSRF-safe
// http(s) fetching, strict data URLs, content-sniffed decoding with size and pixel limits
// checked before the expensive work, and training zip archives read defensively.
package inputs

import (
	"crypto/tls"
	"errors"
	"fmt"
	"image"
	"net/http"
	"net/netip"
	"time"

	"thumbforge/internal/memory"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxBytes      = 10 << 20
	DefaultMaxPixels     = 50_000_000
	DefaultFetchTimeout  = 15 * time.Second
	DefaultMaxRedirects  = 5
	DefaultDecodeMinSide = 1280
	DefaultMinSide       = 16
	DefaultMaxAspect     = 20
)

// JPEGDecoder decodes a JPEG possibly at a reduced scale; the result's shorter side must
// stay at least minSide (or the full image when it is smaller).
type JPEGDecoder func(data []byte, minSide int) (image.Image, error)

// Config configures a Loader. Zero fields take the defaults above.
type Config struct {
	// MaxBytes caps an input's encoded size (fetched body or decoded data URL).
	MaxBytes int64
	// MaxPixels caps width*height, checked from the header before full decode.
	MaxPixels int
	// MinSide is the shortest side an input may have, and MaxAspect the most its longer
	// side may be as a multiple of its shorter one: thinner images cannot make a thumbnail.
	// Both are read from the header, before decoding.
	MinSide   int
	MaxAspect int
	// FetchTimeout bounds a whole fetch: connect, redirects, headers and body.
	FetchTimeout time.Duration
	// MaxRedirects caps redirect hops; 0 means the default, negative means none are followed.
	MaxRedirects int
	// AllowPrivate lets fetches reach private and reserved addresses (local development).
	AllowPrivate bool
	// AllowPrefixes are extra ranges fetches may reach even when AllowPrivate is off (tests).
	AllowPrefixes []netip.Prefix
	// TLSConfig, when set, is used by the fetch client (tests' self-signed servers).
	TLSConfig *tls.Config
	// Decoder, when set, decodes JPEGs (typically at a reduced scale); on error the
	// standard image/jpeg decoder is used instead.
	Decoder JPEGDecoder
	// DecodeMinSide is the shorter side Decoder must keep, and what other formats are
	// reduced to once decoded; 1280 covers every output format after cropping (a 9:16 crop
	// of a landscape source needs 1280 rows).
	DecodeMinSide int
	// Budget, when set, is what decodes reserve their memory from (internal/memory).
	Budget *memory.Budget
}

// withDefaults returns cfg with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxPixels == 0 {
		c.MaxPixels = DefaultMaxPixels
	}
	if c.MinSide == 0 {
		c.MinSide = DefaultMinSide
	}
	if c.MaxAspect == 0 {
		c.MaxAspect = DefaultMaxAspect
	}
	if c.FetchTimeout == 0 {
		c.FetchTimeout = DefaultFetchTimeout
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.DecodeMinSide == 0 {
		c.DecodeMinSide = DefaultDecodeMinSide
	}
	return c
}

// Validate reports the first invalid field of c (after defaults are applied).
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.MaxBytes < 0:
		return errors.New("inputs: MaxBytes must be positive")
	case c.MaxPixels < 0:
		return errors.New("inputs: MaxPixels must be positive")
	case c.MinSide < 0 || c.MaxAspect < 0:
		return errors.New("inputs: MinSide and MaxAspect must not be negative")
	case c.FetchTimeout < 0:
		return errors.New("inputs: FetchTimeout must be positive")
	case c.DecodeMinSide < 0:
		return errors.New("inputs: DecodeMinSide must not be negative")
	}
	for _, p := range c.AllowPrefixes {
		if !p.IsValid() {
			return fmt.Errorf("inputs: invalid AllowPrefixes entry %v", p)
		}
	}
	return nil
}

// Loader loads image inputs; it implements core.ImageLoader.
type Loader struct {
	cfg    Config
	client *http.Client
	guard  addrGuard
}

// New validates cfg and returns a Loader with its own SSRF-safe HTTP client.
func New(cfg Config) (*Loader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	l := &Loader{cfg: cfg, guard: addrGuard{allowAll: cfg.AllowPrivate, allow: cfg.AllowPrefixes}}
	l.client = newClient(cfg, l.guard)
	return l, nil
}
