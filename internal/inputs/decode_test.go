package inputs

import (
	"bytes"
	"context"
	"image"
	"strings"
	"testing"

	"thumbforge/internal/core"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		in   []byte
		want Format
	}{
		{[]byte{0xFF, 0xD8, 0xFF, 0xE0}, FormatJPEG},
		{[]byte("\x89PNG\r\n\x1a\nrest"), FormatPNG},
		{[]byte("GIF87a...."), FormatGIF},
		{[]byte("GIF89a...."), FormatGIF},
		{[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), FormatWebP},
		{[]byte("RIFF\x00\x00\x00\x00WAVEfmt "), FormatUnknown},
		{[]byte("BM\x00\x00"), FormatUnknown},
		{[]byte("<svg xmlns="), FormatUnknown},
		{[]byte{0xFF, 0xD8}, FormatUnknown},
		{nil, FormatUnknown},
	}
	for _, tt := range tests {
		if got := Sniff(tt.in); got != tt.want {
			t.Errorf("Sniff(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecode(t *testing.T) {
	pngData := encodePNG(t, 40, 30)
	jpegData := encodeJPEG(t, 40, 30)
	tests := []struct {
		name   string
		data   []byte
		pixels int
		code   core.Code // empty: success
		msg    string
		w, h   int
	}{
		{"png", pngData, 0, "", "", 40, 30},
		{"jpeg", jpegData, 0, "", "", 40, 30},
		{"gif first frame", encodeGIF(t, 16, 8), 0, "", "", 16, 8},
		{"webp lossless", decode64(t, webpLossless), 0, "", "", 1, 1},
		{"webp lossy", decode64(t, webpLossy), 0, "", "", 1, 1},
		{"exactly at pixel limit", pngData, 40 * 30, "", "", 40, 30},
		{"one pixel over limit", pngData, 40*30 - 1, core.CodeImageTooLarge, "pixels", 0, 0},
		{"bomb header", pngHeaderOnly(100_000, 100_000), 0, core.CodeImageTooLarge, "100000x100000", 0, 0},
		{"zero width", pngHeaderOnly(0, 10), 0, core.CodeInvalidImage, "", 0, 0},
		{"bmp", []byte("BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00"), 0, core.CodeInvalidImage, "unsupported image format; use JPEG, PNG, WebP or GIF", 0, 0},
		{"text", []byte("hello, world"), 0, core.CodeInvalidImage, "unsupported", 0, 0},
		{"empty", nil, 0, core.CodeInvalidImage, "unsupported", 0, 0},
		{"truncated png", pngData[:len(pngData)/2], 0, core.CodeInvalidImage, "corrupt", 0, 0},
		{"truncated jpeg", jpegData[:len(jpegData)/2], 0, core.CodeInvalidImage, "corrupt", 0, 0},
		{"header only png", pngHeaderOnly(10, 10), 0, core.CodeInvalidImage, "corrupt", 0, 0},
		{"jpeg magic only", []byte{0xFF, 0xD8, 0xFF, 0x00}, 0, core.CodeInvalidImage, "corrupt", 0, 0},
		{"webp magic only", []byte("RIFF\x04\x00\x00\x00WEBP"), 0, core.CodeInvalidImage, "corrupt", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The shape rule is TestImageShape's; these fixtures are tiny.
			l := newLoader(t, Config{MaxPixels: tt.pixels, MinSide: 1})
			img, err := l.Decode(context.Background(), tt.data, "image_base64")
			if tt.code != "" {
				e := wantCode(t, err, tt.code, "image_base64")
				if !strings.Contains(e.Details[0].Message, tt.msg) {
					t.Errorf("detail %q does not mention %q", e.Details[0].Message, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
				t.Fatalf("bounds %v, want %dx%d", b, tt.w, tt.h)
			}
		})
	}
}

// TestImageShape: images too thin to make a thumbnail of are refused from their header,
// before any pixel is decoded.
func TestImageShape(t *testing.T) {
	l := newLoader(t, Config{})
	for _, tt := range []struct {
		name string
		data []byte
		code core.Code
		msg  string
	}{
		{"16x16", encodePNG(t, 16, 16), "", ""},
		{"20:1", encodePNG(t, 320, 16), "", ""},
		{"1:20", encodePNG(t, 16, 320), "", ""},
		{"15 px high", encodePNG(t, 100, 15), core.CodeInvalidImage, "shorter side"},
		{"15 px wide", encodeJPEG(t, 15, 100), core.CodeInvalidImage, "shorter side"},
		{"21:1", encodePNG(t, 336, 16), core.CodeInvalidImage, "20:1"},
		{"50,000,000x1 header", pngHeaderOnly(50_000_000, 1), core.CodeInvalidImage, "shorter side"},
		{"40,000x1,000 header", pngHeaderOnly(40_000, 1_000), core.CodeInvalidImage, "20:1"},
	} {
		_, err := l.Decode(context.Background(), tt.data, "image_url")
		if tt.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if e := wantCode(t, err, tt.code, "image_url"); !strings.Contains(e.Details[0].Message, tt.msg) {
			t.Errorf("%s: detail %q does not mention %q", tt.name, e.Details[0].Message, tt.msg)
		}
	}
}

// TestDecoderHook checks the fast JPEG decoder is used for JPEGs only, receives the
// configured minimum side, runs after the pixel check, and falls back on error.
func TestDecoderHook(t *testing.T) {
	small := image.NewGray(image.Rect(0, 0, 5, 4))
	var calls []int
	hook := func(fail bool) JPEGDecoder {
		return func(data []byte, minSide int) (image.Image, error) {
			calls = append(calls, minSide)
			if fail {
				return nil, errFastDecoder
			}
			return small, nil
		}
	}
	jpegData, pngData := encodeJPEG(t, 40, 30), encodePNG(t, 40, 30)

	l := newLoader(t, Config{Decoder: hook(false), DecodeMinSide: 7})
	if img, err := l.Decode(context.Background(), jpegData, "f"); err != nil || img != image.Image(small) {
		t.Fatalf("hook result not used: %v %v", img, err)
	}
	if img, err := l.Decode(context.Background(), pngData, "f"); err != nil || img == image.Image(small) {
		t.Fatalf("hook used for PNG: %v", err)
	}
	if len(calls) != 1 || calls[0] != 7 {
		t.Fatalf("calls %v, want [7]", calls)
	}

	calls = nil
	l = newLoader(t, Config{Decoder: hook(true)})
	img, err := l.Decode(context.Background(), jpegData, "f")
	if err != nil || img.Bounds().Dx() != 40 || len(calls) != 1 || calls[0] != DefaultDecodeMinSide {
		t.Fatalf("fallback: %v %v calls %v", img, err, calls)
	}

	calls = nil
	l = newLoader(t, Config{Decoder: hook(false), MaxPixels: 100})
	wantCode(t, func() error { _, err := l.Decode(context.Background(), jpegData, "f"); return err }(), core.CodeImageTooLarge, "f")
	if len(calls) != 0 {
		t.Fatalf("hook called before the pixel check")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encodePNG(f, 3, 2))
	f.Add(encodeJPEG(f, 3, 2))
	f.Add(encodeGIF(f, 3, 2))
	f.Add(decode64(f, webpLossless))
	f.Add(decode64(f, webpLossy))
	f.Add(pngHeaderOnly(1<<20, 1<<20))
	f.Add(pngHeaderOnly(2, 2))
	f.Add([]byte("GIF89a\xff\xff\xff\xff"))
	f.Add([]byte("RIFF\xff\xff\xff\xffWEBPVP8L"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x03})
	l := newLoader(f, Config{MaxPixels: 1 << 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := l.Decode(context.Background(), data, "x")
		if err != nil {
			if c := core.CodeOf(err); c != core.CodeInvalidImage && c != core.CodeImageTooLarge {
				t.Fatalf("unexpected code %s", c)
			}
			return
		}
		b := img.Bounds()
		if b.Empty() || b.Dx()*b.Dy() > 1<<16 {
			t.Fatalf("accepted image with bounds %v", b)
		}
		if Sniff(data) == FormatUnknown || bytes.Equal(data, nil) {
			t.Fatalf("decoded unsniffable data")
		}
	})
}
