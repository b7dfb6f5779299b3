package inputs

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"thumbforge/internal/core"
)

// serveOn starts an httptest server listening on ip (a loopback address), counting hits.
func serveOn(t *testing.T, ip string, useTLS bool, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	hits := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	if useTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, hits
}

// testTLS trusts httptest's certificate, which names example.com and 127.0.0.1 only.
func testTLS(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool, ServerName: "example.com"}
}

// allow127002 is the one non-public range fetch tests may reach.
var allow127002 = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

func TestFetchRules(t *testing.T) {
	pngData := encodePNG(t, 8, 8)
	var plainURL string
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write(pngData) })
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) { w.Write(bytes.Repeat([]byte{1}, 100)) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write(bytes.Repeat([]byte{1}, 101)) })
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for range 10 { // flushing forces chunked encoding: no Content-Length at all
			w.Write(bytes.Repeat([]byte{1}, 50))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/header-lies", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.WriteHeader(200)
	})
	mux.HandleFunc("/close-delimited", func(w http.ResponseWriter, r *http.Request) {
		conn, buf, _ := w.(http.Hijacker).Hijack()
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
		buf.Write(bytes.Repeat([]byte{1}, 5000))
		buf.Flush()
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		n := strings.Count(r.URL.Path, "x")
		if n == 0 {
			w.Write(pngData)
			return
		}
		http.Redirect(w, r, "/hop/"+strings.Repeat("x", n-1), http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.2/a.png", http.StatusFound)
	})
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plainURL+"/ok", http.StatusFound)
	})
	srv, _ := serveOn(t, "127.0.0.2", true, mux.ServeHTTP)
	plain, plainHits := serveOn(t, "127.0.0.2", false, mux.ServeHTTP)
	plainURL = plain.URL

	l := newLoader(t, Config{AllowPrefixes: allow127002, TLSConfig: testTLS(srv), MaxRedirects: 2})
	tests := []struct {
		path string
		max  int64
		code core.Code // empty: success
		msg  string
		n    int
	}{
		{"/ok", 0, "", "", len(pngData)},
		{"/exact", 100, "", "", 100},
		{"/big", 100, core.CodeImageTooLarge, "larger than 100 bytes", 0},
		{"/chunked", 100, core.CodeImageTooLarge, "larger than", 0},
		{"/header-lies", 100, core.CodeImageTooLarge, "larger than", 0},
		{"/close-delimited", 100, core.CodeImageTooLarge, "larger than", 0},
		{"/missing", 0, core.CodeInvalidImage, "could not be fetched (HTTP status 404)", 0},
		{"/hop/xx", 0, "", "", len(pngData)},
		{"/hop/xxx", 0, core.CodeInvalidImage, "more than 2 redirects", 0},
		{"/to-ftp", 0, core.CodeInvalidImage, "non-http(s)", 0},
		{"/to-http", 0, core.CodeInvalidImage, "https to http", 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			data, err := l.FetchBytes(context.Background(), srv.URL+tt.path, tt.max)
			if tt.code != "" {
				e := wantCode(t, err, tt.code, "")
				if !strings.Contains(e.Details[0].Message, tt.msg) {
					t.Fatalf("detail %q does not mention %q", e.Details[0].Message, tt.msg)
				}
				return
			}
			if err != nil || len(data) != tt.n {
				t.Fatalf("got %d bytes, err %v; want %d bytes", len(data), err, tt.n)
			}
		})
	}
	if plainHits.Load() != 0 {
		t.Fatalf("the downgrade redirect was followed")
	}
	if _, err := l.FetchBytes(context.Background(), plain.URL+"/ok", 0); err != nil {
		t.Fatalf("plain http fetch: %v", err)
	}
	noRedirects := newLoader(t, Config{AllowPrefixes: allow127002, TLSConfig: testTLS(srv), MaxRedirects: -1})
	if _, err := noRedirects.FetchBytes(context.Background(), srv.URL+"/hop/x", 0); core.CodeOf(err) != core.CodeInvalidImage {
		t.Fatalf("MaxRedirects -1 followed a redirect: %v", err)
	}
}

// TestFetchRefusesReservedAddresses dials only addresses the Control hook refuses: the
// refusal is the guard's sentinel error (a connect attempt would fail differently, with a
// timeout or "unreachable"), so no packet leaves for 10/8, the metadata address, etc.
func TestFetchRefusesReservedAddresses(t *testing.T) {
	target, hits := serveOn(t, "127.0.0.1", false, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	})
	l := newLoader(t, Config{FetchTimeout: 5 * time.Second})
	for _, u := range []string{
		"http://10.0.0.1/a.png",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:169.254.169.254]/latest/meta-data/",
		"http://[::ffff:10.1.2.3]/",
		"http://100.64.0.1/",
		"http://192.168.1.1/",
		"http://172.16.0.1/",
		"http://0.0.0.0/",
		"http://[fe80::1]/",
		"http://[fd00::1]/",
		"http://[64:ff9b::a00:1]/",
		"https://224.0.0.1/",
		target.URL + "/",
		strings.Replace(target.URL, "127.0.0.1", "localhost", 1) + "/",
	} {
		_, err := l.Load(context.Background(), core.ImageRef{Field: "image_url", URL: u})
		e := wantCode(t, err, core.CodeInvalidImage, "image_url")
		if !errors.Is(err, errBlockedAddress) || e.Details[0].Message != msgFetchFailed {
			t.Errorf("%s: %v, want refusal by the dial guard, told as a failed fetch", u, err)
		}
		if strings.Contains(e.Message, "10.") || strings.Contains(e.Message, "169.254") {
			t.Errorf("%s: public message leaks the address: %q", u, e.Message)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("loopback server was reached %d times", hits.Load())
	}
	open := newLoader(t, Config{AllowPrivate: true})
	if data, err := open.FetchBytes(context.Background(), target.URL+"/", 0); err != nil || string(data) != "secret" {
		t.Fatalf("AllowPrivate fetch: %q %v", data, err)
	}
}

// TestBlockedAndUnresolvableLookAlike: a client cannot tell an internal name that resolves
// (refused by the guard) from one that does not exist: both answers are the same text.
func TestBlockedAndUnresolvableLookAlike(t *testing.T) {
	l := newLoader(t, Config{})
	var msgs []string
	for _, u := range []string{"https://127.0.0.1/a.png", "https://localhost/a.png", "https://no-such-host.invalid/a.png"} {
		_, err := l.Load(context.Background(), core.ImageRef{Field: "image_url", URL: u})
		e := wantCode(t, err, core.CodeInvalidImage, "image_url")
		msgs = append(msgs, e.Message+"|"+e.Details[0].Message)
	}
	if msgs[0] != msgs[1] || msgs[1] != msgs[2] {
		t.Fatalf("answers differ: %q", msgs)
	}
}

// TestRedirectToLoopbackRefused: an allowed server (127.0.0.2) redirects to a loopback
// server that is not allowed; the hop is refused at dial time.
func TestRedirectToLoopbackRefused(t *testing.T) {
	inner, innerHits := serveOn(t, "127.0.0.1", true, func(w http.ResponseWriter, r *http.Request) {
		w.Write(encodePNG(t, 2, 2))
	})
	outer, outerHits := serveOn(t, "127.0.0.2", true, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin.png", http.StatusFound)
	})
	l := newLoader(t, Config{AllowPrefixes: allow127002, TLSConfig: testTLS(outer)})
	_, err := l.Load(context.Background(), core.ImageRef{Field: "image_url", URL: outer.URL + "/img.png"})
	e := wantCode(t, err, core.CodeInvalidImage, "image_url")
	if !errors.Is(err, errBlockedAddress) || e.Details[0].Message != msgFetchFailed {
		t.Fatalf("got %v, want the redirect hop refused", err)
	}
	if outerHits.Load() != 1 || innerHits.Load() != 0 {
		t.Fatalf("hits outer=%d inner=%d, want 1 and 0", outerHits.Load(), innerHits.Load())
	}
}

func TestFetchTimeoutAndCancel(t *testing.T) {
	release := make(chan struct{})
	srv, _ := serveOn(t, "127.0.0.2", false, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before srv.Close, so handlers return
	l := newLoader(t, Config{AllowPrefixes: allow127002, FetchTimeout: 50 * time.Millisecond})
	_, err := l.FetchBytes(context.Background(), srv.URL, 0)
	if e := wantCode(t, err, core.CodeInvalidImage, ""); !strings.Contains(e.Message, "timed out") {
		t.Fatalf("timeout message %q", e.Message)
	}

	l = newLoader(t, Config{AllowPrefixes: allow127002})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.FetchBytes(ctx, srv.URL, 0); !errors.Is(err, context.Canceled) || core.AsError(err) != nil {
		t.Fatalf("cancelled fetch: %v, want context.Canceled", err)
	}
}

func TestLoad(t *testing.T) {
	pngData := encodePNG(t, 24, 18)
	srv, _ := serveOn(t, "127.0.0.2", true, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/text" {
			io.WriteString(w, "not an image")
			return
		}
		w.Write(pngData)
	})
	l := newLoader(t, Config{AllowPrefixes: allow127002, TLSConfig: testTLS(srv), MaxBytes: 4096})
	dataURL := "data:image/png;base64," + encode64(pngData)
	tests := []struct {
		name string
		ref  core.ImageRef
		code core.Code
	}{
		{"url", core.ImageRef{Field: "image_url", URL: srv.URL + "/a.png"}, ""},
		{"data url", core.ImageRef{Field: "image_base64", Data: dataURL}, ""},
		{"data url declared jpeg is sniffed", core.ImageRef{Field: "image_base64", Data: strings.Replace(dataURL, "png", "jpeg", 1)}, ""},
		{"url not an image", core.ImageRef{Field: "image_url", URL: srv.URL + "/text"}, core.CodeInvalidImage},
		{"data url too large", core.ImageRef{Field: "image_base64", Data: "data:image/png;base64," + encode64(make([]byte, 4097))}, core.CodeImageTooLarge},
		{"data url malformed", core.ImageRef{Field: "support_image_base64", Data: "data:image/png;base64,@@"}, core.CodeInvalidImage},
		{"ftp url", core.ImageRef{Field: "image_url", URL: "ftp://127.0.0.2/a.png"}, core.CodeInvalidImage},
		{"relative url", core.ImageRef{Field: "image_url", URL: "/a.png"}, core.CodeInvalidImage},
		{"empty", core.ImageRef{Field: "image_url"}, core.CodeInvalidImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := l.Load(context.Background(), tt.ref)
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.ref.Field)
				return
			}
			if err != nil || img.Bounds().Dx() != 24 || img.Bounds().Dy() != 18 {
				t.Fatalf("Load: %v %v", img, err)
			}
		})
	}
}
