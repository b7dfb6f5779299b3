// Command rrproxy is a minimal round-robin HTTP reverse proxy for benchmarks: it spreads
// requests over the backends given as arguments, like a load balancer in front of
// thumbforge replicas, so bench/cluster.sh needs nothing beyond Go.
//
//	rrproxy -listen 127.0.0.1:9000 http://127.0.0.1:8081 http://127.0.0.1:8082
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9000", "listen address")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: rrproxy -listen ADDR BACKEND_URL...")
		os.Exit(2)
	}
	var backends []*url.URL
	for _, s := range flag.Args() {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || u.Host == "" {
			log.Fatalf("backend %q: want a URL such as http://127.0.0.1:8081", s)
		}
		backends = append(backends, u)
	}
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		// Keep enough idle connections per backend for the benchmark's concurrency, so
		// the proxy measures forwarding rather than TCP set-up.
		Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 256},
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backends[(next.Add(1)-1)%uint64(len(backends))])
			pr.SetXForwarded()
		},
	}
	log.Printf("rrproxy on %s -> %d backends", *listen, len(backends))
	log.Fatal(http.ListenAndServe(*listen, rp))
}
