package console_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// sampleImage is a picture with some structure: a warm gradient and a bright disc.
func sampleImage(w, h int, seed uint8) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x * 255 / w), uint8(y * 200 / h), seed, 255}
			if dx, dy := x-w*2/3, y-h/2; dx*dx+dy*dy < (h/5)*(h/5) {
				c = color.RGBA{250, 235, 60, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func jpegBytes(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeJPEG saves img in the test's temp dir and returns the path, for upload fields.
func writeJPEG(t *testing.T, img image.Image) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "upload-*.jpg")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(jpegBytes(t, img)); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

func dataURL(t *testing.T, img image.Image) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpegBytes(t, img))
}

// dataURLFile reads a JPEG file as a data URL.
func dataURLFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

// fetchJPEG downloads and decodes an output link.
func fetchJPEG(t *testing.T, url string) image.Image {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	img, err := jpeg.Decode(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return img
}

// saturation is the mean of max(R,G,B)-min(R,G,B) over a vertical band of img, from
// fraction x0 to x1 of its width.
func saturation(img image.Image, x0, x1 float64) float64 {
	b := img.Bounds()
	var sum, n float64
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X + int(x0*float64(b.Dx())); x < b.Min.X+int(x1*float64(b.Dx())); x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl), min(r, g, bl)
			sum += float64(hi-lo) / 257
			n++
		}
	}
	return sum / n
}
