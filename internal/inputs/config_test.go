package inputs

import (
	"net/netip"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	l := newLoader(t, Config{})
	c := l.cfg
	if c.MaxBytes != 10<<20 || c.MaxPixels != 50_000_000 || c.FetchTimeout != 15*time.Second ||
		c.MaxRedirects != 5 || c.DecodeMinSide != 1280 || c.AllowPrivate {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero", Config{}, true},
		{"explicit", Config{MaxBytes: 1, MaxPixels: 1, FetchTimeout: time.Second, MaxRedirects: -1}, true},
		{"negative bytes", Config{MaxBytes: -1}, false},
		{"negative pixels", Config{MaxPixels: -1}, false},
		{"negative timeout", Config{FetchTimeout: -time.Second}, false},
		{"negative min side", Config{DecodeMinSide: -1}, false},
		{"invalid prefix", Config{AllowPrefixes: []netip.Prefix{{}}}, false},
		{"valid prefix", Config{AllowPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if _, err := New(tt.cfg); (err == nil) != tt.ok {
				t.Fatalf("New() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
