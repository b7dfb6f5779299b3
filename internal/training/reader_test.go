package training

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
	"thumbforge/internal/memory"
)

// entry is one file of a zip built by a test.
type entry struct {
	name string
	data []byte
}

func buildZip(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		// CreateHeader keeps names the archive/zip writer would otherwise accept as they are,
		// including traversal and duplicates: hostile archives are built by hand, not by zip.
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngBytes(t *testing.T, c color.RGBA) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, solid(c, 16, 16)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadZipRules(t *testing.T) {
	red, blue := pngBytes(t, color.RGBA{255, 0, 0, 255}), pngBytes(t, color.RGBA{0, 0, 255, 255})
	jpg := photo(t, "coffee.jpg")
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	bomb := append(append([]byte{}, red[:8]...), make([]byte, 20<<20)...) // PNG magic, then 20 MB of zeros
	many := func(n int) []entry {
		var es []entry
		for i := range n {
			es = append(es, entry{name: "img" + string(rune('A'+i)) + ".png", data: red})
		}
		return es
	}
	for _, tc := range []struct {
		name    string
		body    []byte // served as the archive; nil means 404
		max     int
		want    []string // names of the images kept
		wantErr string   // part of the reason
	}{
		{name: "nested folders and junk", max: 20, body: buildZip(t,
			entry{"__MACOSX/._a.png", red},
			entry{".hidden.png", red},
			entry{"dir/.git/x.png", red},
			entry{"../evil.png", red},
			entry{"/abs.png", red},
			entry{"empty.png", nil},
			entry{"notes.txt", []byte("hello")},
			entry{"anim.gif", gif},
			entry{"a/b/c/first.png", red},
			entry{"photo.jpeg", jpg},
			entry{"a/b/c/first.png", blue},
			entry{"folder/", nil},
		), want: []string{"a/b/c/first.png", "photo.jpeg"}},
		{name: "persona keeps the first 20", max: 20, body: buildZip(t, many(25)...), want: namesOf(many(20))},
		{name: "style keeps the first 3", max: 3, body: buildZip(t, many(5)...), want: namesOf(many(3))},
		{name: "not a zip", max: 20, body: []byte("PK\x03\x04 but not really"), wantErr: "not a valid zip"},
		{name: "no images", max: 20, body: buildZip(t, entry{"a.txt", []byte("x")}, entry{"b.gif", gif}), wantErr: "no PNG or JPEG"},
		{name: "empty zip", max: 20, body: buildZip(t), wantErr: "no PNG or JPEG"},
		{name: "bomb", max: 20, body: buildZip(t, entry{"bomb.png", bomb}), wantErr: "larger than 8 MB"},
		{name: "corrupt png", max: 20, body: buildZip(t, entry{"bad.png", red[:20]}), wantErr: "not a readable"},
		{name: "inaccessible", max: 20, body: nil, wantErr: "HTTP status 404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.body == nil {
					http.NotFound(w, r)
					return
				}
				w.Write(tc.body)
			}))
			defer srv.Close()
			loader, err := inputs.New(inputs.Config{AllowPrivate: true})
			if err != nil {
				t.Fatal(err)
			}
			r := &Reader{Loader: loader}
			var imgs []core.TrainingImage
			err = r.ReadZip(context.Background(), srv.URL+"/data.zip", tc.max, func(im core.TrainingImage) error {
				imgs = append(imgs, im)
				return nil
			})
			if tc.wantErr != "" {
				var te *core.TrainingDataError
				if !errors.As(err, &te) || !strings.Contains(te.Reason, tc.wantErr) {
					t.Fatalf("err = %v, want a training data error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, im := range imgs {
				got = append(got, im.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("kept %v, want %v", got, tc.want)
			}
		})
	}
}

func namesOf(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.name)
	}
	return out
}

func TestReadZipRefusesPrivateAddresses(t *testing.T) {
	loader, err := inputs.New(inputs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = (&Reader{Loader: loader}).ReadZip(context.Background(), "http://127.0.0.1:9/data.zip", 20, func(core.TrainingImage) error { return nil })
	var te *core.TrainingDataError
	// Refused by the guard, and told like any download that failed: a client cannot probe
	// which internal addresses answer.
	if !errors.As(err, &te) || te.Reason != "the training_data URL could not be downloaded" || !strings.Contains(te.Error(), "could not") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadZipOneImageAtATime: each image of an archive is decoded only when its turn
// comes and given back to the memory budget before the next; a corrupt image names itself.
func TestReadZipOneImageAtATime(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, solid(color.RGBA{200, 10, 10, 255}, 1600, 1200)); err != nil {
		t.Fatal(err)
	}
	big := buf.Bytes()
	budget, err := memory.New(memory.MinBudget, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	loader, err := inputs.New(inputs.Config{AllowPrivate: true, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(data []byte) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
		t.Cleanup(srv.Close)
		return srv.URL + "/data.zip"
	}
	r := &Reader{Loader: loader}
	var inUse []int64
	err = r.ReadZip(context.Background(), serve(buildZip(t, entry{"a.png", big}, entry{"b.png", big}, entry{"c.png", big})), 20,
		func(im core.TrainingImage) error {
			inUse = append(inUse, budget.InUse())
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(inUse) != 3 || inUse[0] == 0 || inUse[1] != inUse[0] || inUse[2] != inUse[0] {
		t.Fatalf("reserved while each image was handled: %v, want the same for each (one image at a time)", inUse)
	}
	if budget.InUse() != 0 {
		t.Fatalf("%d bytes still reserved after the archive", budget.InUse())
	}
	err = r.ReadZip(context.Background(), serve(buildZip(t, entry{"a.png", big}, entry{"bad.png", big[:len(big)/2]})), 20,
		func(core.TrainingImage) error { return nil })
	var te *core.TrainingDataError
	if !errors.As(err, &te) || !strings.Contains(te.Reason, "image bad.png is not a readable PNG or JPEG") {
		t.Fatalf("corrupt image: %v", err)
	}
}
