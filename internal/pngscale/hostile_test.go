package pngscale

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"io"
	"runtime"
	"testing"

	"thumbforge/internal/testutil/payload"
)

// TestPayload decodes issue 11's 16-bit 7000x7000 PNG to the 1280x1280 inputs keep: what
// it allocates is what Bytes announces, a small part of image/png's 392 MB.
func TestPayload(t *testing.T) {
	data := payload.PNG16(7000, 7000, 1)
	hdr, err := DecodeConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if hdr != (Header{Width: 7000, Height: 7000, Depth: 16, ColorType: 2}) {
		t.Fatalf("header %+v", hdr)
	}
	announced := hdr.Bytes(1280, 1280)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	img, err := Decode(data, 1280, 1280)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > announced {
		t.Errorf("Decode allocated %d bytes, Bytes announced %d", got, announced)
	}
	if announced > 12<<20 {
		t.Errorf("Bytes(1280, 1280) = %d, want under 12 MiB", announced)
	}
	if img.Bounds() != image.Rect(0, 0, 1280, 1280) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	// The same generator at a tenth of the size, against image/png.
	small := payload.PNG16(700, 700, 1)
	got, err := Decode(small, 128, 128)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "PNG16(700, 700)", got, reference(t, small, 128, 128))
}

// withIHDR rewrites a file's header dimensions (and its CRC).
func withIHDR(data []byte, w, h uint32) []byte {
	b := bytes.Clone(data)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// TestHostile: a header announcing huge dimensions over little data allocates only the
// reduced output before failing; truncated and corrupt files fail cleanly.
func TestHostile(t *testing.T) {
	small := picture(64, 64, 16, 6, 1).encode()
	huge := withIHDR(small, 14000, 14000) // 196 megapixels, 8 KB of data
	hdr, err := DecodeConfig(huge)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Decode(huge, 100, 100)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Decode of a 14000x14000 header over 64x64 data: %v, want unexpected EOF", err)
	}
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > hdr.Bytes(100, 100) {
		t.Errorf("allocated %d bytes, announced %d", got, hdr.Bytes(100, 100))
	}
	if _, err := DecodeConfig(withIHDR(small, 20000, 20000)); !errors.Is(err, ErrFormat) {
		t.Errorf("400 megapixels: %v, want ErrFormat", err)
	}
	if _, err := Decode(small, 65, 10); err == nil {
		t.Error("enlarging decoded without error")
	}
	for n := 8; n < len(small); n += len(small) / 17 {
		if _, err := Decode(small[:n], 32, 32); err == nil {
			t.Errorf("cut to %d bytes decoded without error", n)
		}
	}
	bad := bytes.Clone(small)
	bad[len(bad)/2] ^= 0x10
	if _, err := Decode(bad, 32, 32); !errors.Is(err, ErrFormat) {
		t.Errorf("flipped bit: %v, want a CRC error", err)
	}
}
