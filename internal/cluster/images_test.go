package cluster_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// images is the test's image server, plain HTTP on loopback (version 1 takes http URLs;
// the replicas run with --allow-private-fetch). /block/TAG/... holds each request until
// the gate TAG opens, so requests stay in flight as long as the test needs.
type images struct {
	srv   *httptest.Server
	mu    sync.Mutex
	gates map[string]*gate
	files map[string][]byte
}

// gate holds requests: count says how many arrived, open lets them all go.
type gate struct {
	arrived atomic.Int64
	release chan struct{}
	once    sync.Once
	body    []byte
}

func (g *gate) count() int { return int(g.arrived.Load()) }
func (g *gate) open()      { g.once.Do(func() { close(g.release) }) }

func newImages(t *testing.T) *images {
	im := &images{gates: map[string]*gate{}, files: map[string][]byte{}}
	im.srv = httptest.NewServer(http.HandlerFunc(im.serve))
	t.Cleanup(func() {
		im.mu.Lock()
		for _, g := range im.gates {
			g.open()
		}
		im.mu.Unlock()
		im.srv.Close()
	})
	return im
}

func (im *images) serve(w http.ResponseWriter, r *http.Request) {
	im.mu.Lock()
	data, ok := im.files[r.URL.Path]
	var g *gate
	if rest, found := strings.CutPrefix(r.URL.Path, "/block/"); found {
		tag, _, _ := strings.Cut(rest, "/")
		g = im.gates[tag]
	}
	im.mu.Unlock()
	if g != nil {
		g.arrived.Add(1)
		select {
		case <-g.release:
		case <-r.Context().Done(): // the replica died or gave up
			return
		}
		data, ok = g.body, true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

// add serves data at path and returns its URL.
func (im *images) add(path string, data []byte) string {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.files[path] = data
	return im.srv.URL + path
}

// gate creates the gate tag, whose held requests are answered with body.
func (im *images) gate(tag string, body []byte) *gate {
	im.mu.Lock()
	defer im.mu.Unlock()
	g := &gate{release: make(chan struct{}), body: body}
	im.gates[tag] = g
	return g
}

// blockURL is a URL under gate tag; n keeps URLs distinct.
func (im *images) blockURL(tag string, n int) string {
	return im.srv.URL + "/block/" + tag + "/" + string(rune('a'+n%26)) + ".jpg"
}

// testJPEG is a w x h gradient with a disc, varied by seed: a face-free picture.
func testJPEG(t testing.TB, w, h int, seed uint8) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), seed, 255}
			if dx, dy := x-w*2/3, y-h/2; dx*dx+dy*dy < (h/5)*(h/5) {
				c = color.RGBA{250, 240 - seed/2, 40 + seed/3, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// photo is a test photograph of the faces package (astronaut.jpg has one face).
func photo(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "faces", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dataURL(b []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

// zipOf builds a zip archive of name/content pairs.
func zipOf(t testing.TB, files ...any) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		w, err := zw.Create(files[i].(string))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[i+1].([]byte))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
