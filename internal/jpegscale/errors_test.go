package jpegscale

import (
	"bytes"
	"errors"
	"image"
	"io"
	"testing"
)

// findMarker returns the index of the first 0xFF m marker in a header.
func findMarker(t *testing.T, data []byte, m byte) int {
	t.Helper()
	i := bytes.Index(data, []byte{0xFF, m})
	if i < 0 {
		t.Fatalf("marker %#x not found", m)
	}
	return i
}

// patched returns a copy of data with fn applied.
func patched(data []byte, fn func(b []byte) []byte) []byte {
	return fn(append([]byte(nil), data...))
}

func TestUnsupportedVariants(t *testing.T) {
	base := stdEncode(t, photo(64, 48, image.YCbCrSubsampleRatio420, 1), 80)
	sof := findMarker(t, base, mSOF0)
	setSOF := func(m byte) func([]byte) []byte {
		return func(b []byte) []byte { b[sof+1] = m; return b }
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"lossless SOF3", patched(base, setSOF(0xC3))},
		{"arithmetic SOF9", patched(base, setSOF(0xC9))},
		{"arithmetic progressive SOF10", patched(base, setSOF(0xCA))},
		{"12-bit", patched(base, func(b []byte) []byte { b[sof+4] = 12; return b })},
		{"height from DNL", patched(base, func(b []byte) []byte { b[sof+5], b[sof+6] = 0, 0; return b })},
		{"Adobe RGB", patched(base, func(b []byte) []byte {
			app14 := []byte{0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0}
			return append(append([]byte{0xFF, mSOI}, app14...), b[2:]...)
		})},
		{"odd chroma sampling", patched(base, func(b []byte) []byte { b[sof+14] = 0x21; return b })},
		{"CMYK", patched(base, func(b []byte) []byte {
			// Four components, each 1x1 with table 0.
			sof4 := []byte{0xFF, mSOF0, 0, 20, 8, 0, 48, 0, 64, 4, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 4, 0x11, 0}
			n := int(b[sof+2])<<8 | int(b[sof+3])
			return append(append(b[:sof:sof], sof4...), b[sof+2+n:]...)
		})},
	}
	for _, tt := range tests {
		if _, err := Decode(tt.data, 0); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Decode error %v, want ErrUnsupported", tt.name, err)
		}
		if _, err := DecodeConfig(tt.data); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: DecodeConfig error %v, want ErrUnsupported", tt.name, err)
		}
	}
}

func TestMalformed(t *testing.T) {
	base := stdEncode(t, photo(64, 48, image.YCbCrSubsampleRatio420, 1), 80)
	sof := findMarker(t, base, mSOF0)
	setSize := func(w, h int) []byte {
		return patched(base, func(b []byte) []byte {
			b[sof+5], b[sof+6], b[sof+7], b[sof+8] = byte(h>>8), byte(h), byte(w>>8), byte(w)
			return b
		})
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrFormat},
		{"png signature", []byte("\x89PNG\r\n\x1a\n"), ErrFormat},
		{"SOI only", []byte{0xFF, mSOI}, ErrFormat},
		{"over pixel limit", setSize(20000, 20000), ErrTooLarge},
		{"more blocks than data", setSize(9000, 9000), io.ErrUnexpectedEOF},
		{"zero width", setSize(0, 48), ErrFormat},
	}
	for _, tt := range tests {
		if _, err := Decode(tt.data, 0); !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, tc := range testFiles(t)[:6] {
		// Every cut before the EOI marker loses entropy-coded bits or headers.
		for cut := 0; cut < len(tc.data)-2; cut += 1 + cut/16 {
			img, err := Decode(tc.data[:cut], 0)
			if err == nil {
				t.Fatalf("%s cut at %d of %d: got %v, want an error", tc.name, cut, len(tc.data), img.Bounds())
			}
		}
		if _, err := Decode(tc.data[:len(tc.data)-2], 0); err != nil {
			t.Errorf("%s without EOI: %v", tc.name, err)
		}
	}
}
