package inputs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"testing"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
	"thumbforge/internal/jpegscale"
	"thumbforge/internal/memory"
	"thumbforge/internal/testutil"
)

// TestScaledDecodes: issue 11's 7000x7000 progressive JPEG and 16-bit PNG are decoded at
// the size inputs keep under the smallest budget (a 64 MiB share), whose share image/jpeg
// and image/png could never fit; what stays reserved is the kept result.
func TestScaledDecodes(t *testing.T) {
	budget, err := memory.New(memory.MinBudget, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	l, err := inputs.New(inputs.Config{Decoder: jpegscale.Decode, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want image.Rectangle
	}{
		{"progressive JPEG", testutil.ProgressiveJPEG(7000, 7000), image.Rect(0, 0, 1750, 1750)},
		{"16-bit PNG", testutil.PNG16(7000, 7000, 1), image.Rect(0, 0, 1280, 1280)},
	} {
		ctx, end := memory.WithScope(context.Background())
		img, err := l.Decode(ctx, tc.data, "image")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if img.Bounds() != tc.want {
			t.Errorf("%s: bounds %v, want %v", tc.name, img.Bounds(), tc.want)
		}
		if held, want := budget.InUse(), resultBytes(img); held != want {
			t.Errorf("%s: %d bytes held, want the result's %d", tc.name, held, want)
		}
		end()
		if budget.InUse() != 0 {
			t.Errorf("%s: %d bytes still held after the scope", tc.name, budget.InUse())
		}
	}
}

// TestFallbackReserves: when the fast decoder fails on a file, image/jpeg's full-size cost
// is reserved before it runs; for the 7000x7000 progressive file that is beyond a share,
// so it is refused as too large rather than decoded unaccounted.
func TestFallbackReserves(t *testing.T) {
	budget, err := memory.New(memory.MinBudget, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	failing := func([]byte, int) (image.Image, error) { return nil, errors.New("fast decoder refused") }
	l, err := inputs.New(inputs.Config{Decoder: failing, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Decode(context.Background(), testutil.ProgressiveJPEG(7000, 7000), "image")
	if core.CodeOf(err) != core.CodeImageTooLarge {
		t.Errorf("got %v, want IMAGE_TOO_LARGE", err)
	}
	if budget.InUse() != 0 {
		t.Errorf("%d bytes left reserved", budget.InUse())
	}
}

// resultBytes is the size of the pixels of the two image types the scaled decoders return.
func resultBytes(img image.Image) int64 {
	switch m := img.(type) {
	case *image.RGBA:
		return int64(len(m.Pix))
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	}
	return -1
}

// TestTooManyScans: a progressive JPEG past jpegscale.MaxScans is refused as an invalid
// image, not handed to image/jpeg (which would decode it, spending CPU on every scan).
func TestTooManyScans(t *testing.T) {
	data := testutil.ProgressiveJPEG(800, 600)
	last := bytes.LastIndex(data, []byte{0xFF, 0xDA})
	scan := data[last : len(data)-2]
	out := bytes.Clone(data[:len(data)-2])
	for range jpegscale.MaxScans {
		out = append(out, scan...)
	}
	out = append(out, 0xFF, 0xD9)
	l, err := inputs.New(inputs.Config{Decoder: jpegscale.Decode})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Decode(context.Background(), out, "image")
	if e := core.AsError(err); e == nil || e.Code != core.CodeInvalidImage || !strings.Contains(fmt.Sprint(e.Details), "scans") {
		t.Fatalf("got %v, want INVALID_IMAGE about scans", err)
	}
}
