package inputs

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

// entry is one file of a test archive. raw entries are written with a header whose
// UncompressedSize64 is lie (a zip bomb that under-declares its size).
type entry struct {
	name   string
	data   []byte
	method uint16
	lie    uint64
}

func makeZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		if e.lie > 0 {
			var c bytes.Buffer
			fw, _ := flate.NewWriter(&c, flate.BestCompression)
			fw.Write(e.data)
			fw.Close()
			w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: zip.Deflate,
				CRC32: crc32.ChecksumIEEE(e.data), CompressedSize64: uint64(c.Len()), UncompressedSize64: e.lie})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(c.Bytes())
			continue
		}
		if e.method == 99 { // unknown method: only a raw write can produce it
			w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: 99, CRC32: crc32.ChecksumIEEE(e.data),
				CompressedSize64: uint64(len(e.data)), UncompressedSize64: uint64(len(e.data))})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.data)
			continue
		}
		method := e.method
		if method == 0 && !strings.HasSuffix(e.name, "/") {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombPNG is a PNG signature followed by n zero bytes: it sniffs as PNG and deflates to
// almost nothing.
func bombPNG(n int) []byte { return append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, n)...) }

func TestReadTrainingZip(t *testing.T) {
	png1, png2, jpg := encodePNG(t, 20, 16), encodePNG(t, 17, 17), encodeJPEG(t, 16, 16)
	gifData, webpData := encodeGIF(t, 4, 4), decode64(t, webpLossless)
	// A JPEG padded after its end marker: decodable, highly compressible, 100 KB read.
	padded := append(append([]byte{}, jpg...), make([]byte, 100_000)...)
	many := func(n int, tail ...entry) []entry {
		var es []entry
		for i := range n {
			es = append(es, entry{name: "img" + string(rune('a'+i)) + ".png", data: png1})
		}
		return append(es, tail...)
	}
	tests := []struct {
		name    string
		zip     []byte
		lim     ZipLimits
		want    []string // names kept, in order
		reason  string   // ZipError reason substring when an error is expected
		checkFn func(t *testing.T, imgs []zipImage)
	}{
		{name: "png and jpeg in order", zip: makeZip(t, entry{name: "b.jpg", data: jpg}, entry{name: "a.png", data: png1}),
			want: []string{"b.jpg", "a.png"}},
		{name: "stored entries", zip: makeZip(t, entry{name: "a.png", data: png1, method: zip.Store}), want: []string{"a.png"}},
		{name: "nested folders", zip: makeZip(t, entry{name: "photos/"}, entry{name: "photos/2024/c.png", data: png1},
			entry{name: "./d.png", data: png2}), want: []string{"photos/2024/c.png", "d.png"}},
		{name: "judged by content, not name", zip: makeZip(t, entry{name: "photo.gif", data: jpg}, entry{name: "fake.jpg", data: []byte("hello")},
			entry{name: "real.gif", data: gifData}, entry{name: "x.webp", data: webpData}), want: []string{"photo.gif"}},
		{name: "skips macosx hidden and empty", zip: makeZip(t, entry{name: "__MACOSX/._a.png", data: png1},
			entry{name: "__MACOSX/x/b.png", data: png1}, entry{name: ".hidden.png", data: png1}, entry{name: "d/.git/e.png", data: png1},
			entry{name: "empty.png"}, entry{name: "a.png", data: png2}), want: []string{"a.png"}},
		{name: "duplicates keep first", zip: makeZip(t, entry{name: "a.png", data: png1}, entry{name: "a.png", data: png2}),
			want: []string{"a.png"}, checkFn: func(t *testing.T, imgs []zipImage) {
				if !bytes.Equal(imgs[0].Data, png1) {
					t.Fatalf("second duplicate kept")
				}
			}},
		{name: "unsafe names ignored", zip: makeZip(t, entry{name: "../evil.png", data: png1}, entry{name: "/abs.png", data: png1},
			entry{name: "a/../../b.png", data: png1}, entry{name: `..\win.png`, data: png1}, entry{name: `C:\x.png`, data: png1},
			entry{name: "ok.png", data: png2}), want: []string{"ok.png"}},
		{name: "surplus ignored, even oversize", zip: makeZip(t, many(3, entry{name: "huge.png", data: bombPNG(200)})...),
			lim: ZipLimits{MaxImages: 3, MaxImageBytes: 100}, want: []string{"imga.png", "imgb.png", "imgc.png"}},
		{name: "default max images", zip: makeZip(t, many(25)...), want: strings.Fields(
			"imga.png imgb.png imgc.png imgd.png imge.png imgf.png imgg.png imgh.png imgi.png imgj.png " +
				"imgk.png imgl.png imgm.png imgn.png imgo.png imgp.png imgq.png imgr.png imgs.png imgt.png")},
		{name: "huge non-image costs nothing", zip: makeZip(t, entry{name: "big.bin", data: make([]byte, 4<<20)}, entry{name: "a.png", data: png1}),
			lim: ZipLimits{MaxTotalBytes: 1 << 20}, want: []string{"a.png"}},
		{name: "bomb over the image limit", zip: makeZip(t, entry{name: "bomb.png", data: bombPNG(9 << 20)}),
			reason: "image bomb.png is larger than 8 MB"},
		{name: "bomb with lying header", zip: makeZip(t, entry{name: "liar.png", data: bombPNG(1 << 20), lie: 100}),
			reason: "liar.png"},
		{name: "total read over limit", zip: makeZip(t, entry{name: "a.jpg", data: padded},
			entry{name: "b.jpg", data: padded}, entry{name: "c.jpg", data: padded}),
			lim:    ZipLimits{MaxTotalBytes: 250_000},
			reason: "archive holds more than"},
		{name: "archive over limit", zip: makeZip(t, entry{name: "a.png", data: png1}), lim: ZipLimits{MaxTotalBytes: 100},
			reason: "archive is larger than 100 bytes"},
		{name: "no images", zip: makeZip(t, entry{name: "readme.txt", data: []byte("hi")}, entry{name: "dir/"}),
			reason: "no PNG or JPEG images found"},
		{name: "empty archive", zip: makeZip(t), reason: "no PNG or JPEG images found"},
		{name: "not a zip", zip: []byte("PK\x03\x04 this is not a zip"), reason: "archive is not a valid zip file"},
		{name: "png bytes, not a zip", zip: png1, reason: "archive is not a valid zip file"},
		{name: "unknown compression", zip: makeZip(t, entry{name: "a.png", data: png1, method: 99}), reason: "could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imgs, err := readZip(tt.zip, tt.lim)
			if tt.reason != "" {
				var ze *ZipError
				if !errors.As(err, &ze) || !strings.Contains(ze.Reason, tt.reason) {
					t.Fatalf("error %v, want ZipError with %q", err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("EachTrainingImage: %v", err)
			}
			var names []string
			for _, im := range imgs {
				names = append(names, im.Name)
				if len(im.Data) == 0 {
					t.Fatalf("%s: empty image", im.Name)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("names %v, want %v", names, tt.want)
			}
			if tt.checkFn != nil {
				tt.checkFn(t, imgs)
			}
		})
	}
}

// zipImage is an entry EachTrainingImage gave.
type zipImage struct {
	Name string
	Data []byte
}

// readZip collects what EachTrainingImage gives, copying each body (the walk reuses
// nothing, but a test must not rely on that).
func readZip(data []byte, lim ZipLimits) ([]zipImage, error) {
	var out []zipImage
	err := EachTrainingImage(data, lim, func(name string, body []byte) error {
		out = append(out, zipImage{Name: name, Data: append([]byte(nil), body...)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func FuzzReadTrainingZip(f *testing.F) {
	png1, jpg := encodePNG(f, 16, 16), encodeJPEG(f, 16, 16)
	f.Add(makeZip(f, entry{name: "a.png", data: png1}, entry{name: "b/c.jpg", data: jpg}))
	f.Add(makeZip(f, entry{name: "bomb.png", data: bombPNG(1 << 20)}))
	f.Add(makeZip(f, entry{name: "liar.png", data: bombPNG(1 << 16), lie: 10}))
	f.Add(makeZip(f, entry{name: "../x.png", data: png1}, entry{name: "/y.png", data: png1}, entry{name: "__MACOSX/._a.png", data: png1}))
	f.Add(makeZip(f, entry{name: "a.png", data: png1}, entry{name: "a.png", data: jpg}, entry{name: "z.png"}, entry{name: ".h.png", data: png1}))
	f.Add(makeZip(f, entry{name: "t.txt", data: []byte("text")}, entry{name: "d/"}, entry{name: "p.png", data: pngHeaderOnly(1<<16, 1<<16)}))
	f.Add(makeZip(f, entry{name: "1.png", data: png1}, entry{name: "2.png", data: png1}, entry{name: "3.png", data: png1}, entry{name: "4.png", data: png1}))
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	lim := ZipLimits{MaxImageBytes: 64 << 10, MaxTotalBytes: 256 << 10, MaxImages: 3, MaxPixels: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		imgs, err := readZip(data, lim)
		if err != nil {
			var ze *ZipError
			if !errors.As(err, &ze) || ze.Reason == "" || imgs != nil {
				t.Fatalf("error %v is not a *ZipError", err)
			}
			return
		}
		if len(imgs) == 0 || len(imgs) > lim.MaxImages {
			t.Fatalf("%d images", len(imgs))
		}
		seen := map[string]bool{}
		for _, im := range imgs {
			if f := Sniff(im.Data); f != FormatPNG && f != FormatJPEG || int64(len(im.Data)) > lim.MaxImageBytes {
				t.Fatalf("%s: format %q, %d bytes", im.Name, f, len(im.Data))
			}
			if seen[im.Name] || strings.Contains(im.Name, "..") || strings.HasPrefix(im.Name, "/") {
				t.Fatalf("bad entry %q", im.Name)
			}
			seen[im.Name] = true
		}
	})
}
