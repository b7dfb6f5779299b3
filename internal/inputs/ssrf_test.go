package inputs

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddrGuard(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"93.184.216.34", true},
		{"2606:4700:4700::1111", true},
		{"::ffff:8.8.8.8", false},  // IPv4-mapped: no DNS answer should carry one; never dialed as such
		{"64:ff9b::808:808", true}, // NAT64 of a public address
		{"2002:808:808::1", true},  // 6to4 of a public address
		{"127.0.0.1", false},
		{"127.0.0.2", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.0.1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"169.254.169.254", false},
		{"169.254.0.1", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"ff02::1", false},
		{"255.255.255.255", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"198.18.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:100.64.0.1", false},
		{"::10.0.0.1", false},         // IPv4-compatible
		{"64:ff9b::a00:1", false},     // NAT64 of 10.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of the metadata address
		{"2002:a00:1::1", false},      // 6to4 of 10.0.0.1
		{"2001:db8::1", false},
		{"64:ff9b:1::808:808", false}, // local-use NAT64 (RFC 8215): whatever the operator routes
		{"64:ff9b:1:ffff::1", false},
		{"::ffff:0:808:808", false},    // IPv4-translated (SIIT)
		{"2001::808:808", false},       // Teredo, and the rest of 2001::/23
		{"2001:2::1", false},           // benchmarking
		{"2001:4860:4860::8888", true}, // outside 2001::/23
		{"3fff::1", false},             // documentation (RFC 9637)
		{"5f00::1", false},             // SRv6 SIDs (RFC 9602)
		{"192.88.99.1", false},         // 6to4 relay anycast
		{"64:ff9b::c058:6301", false},  // NAT64 of 192.88.99.1
	}
	deny := addrGuard{}
	allowLoop2 := addrGuard{allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	all := addrGuard{allowAll: true}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := deny.allowed(a); got != tt.public {
			t.Errorf("allowed(%s) = %v, want %v", tt.addr, got, tt.public)
		}
		if !all.allowed(a) {
			t.Errorf("AllowPrivate refused %s", tt.addr)
		}
		wantLoop2 := tt.public || tt.addr == "127.0.0.2"
		if got := allowLoop2.allowed(a); got != wantLoop2 {
			t.Errorf("with 127.0.0.2/32 allowed(%s) = %v, want %v", tt.addr, got, wantLoop2)
		}
	}
	if !allowLoop2.allowed(netip.MustParseAddr("::ffff:127.0.0.2")) {
		t.Errorf("mapped form of an allowed prefix refused")
	}
}

func TestControl(t *testing.T) {
	g := addrGuard{}
	for _, addr := range []string{"10.0.0.1:80", "169.254.169.254:80", "[::1]:443", "[fe80::1%lo]:80", "not-an-address"} {
		if err := g.control("tcp", addr, nil); !errors.Is(err, errBlockedAddress) {
			t.Errorf("control(%s) = %v, want refusal", addr, err)
		}
	}
	if err := g.control("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("control(public) = %v", err)
	}
}
