package gallery

import (
	"context"
	"image/jpeg"
	"os"
	"testing"

	"thumbforge/internal/engines/builtin"
)

func TestRenderWritesDecodableJPEGs(t *testing.T) {
	eng, err := builtin.New(builtin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("GALLERY_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	paths, err := Render(context.Background(), eng, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("got %d files", len(paths))
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jpeg.Decode(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		f.Close()
	}
}
