package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/faces"
	"thumbforge/internal/gallery"
)

func runGallery(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("gallery", stdout)
	out := fs.String("out", "", "directory to write the sample thumbnails to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out DIR is required")
	}
	det, err := faces.NewDetector()
	if err != nil {
		return err
	}
	eng, err := builtin.New(builtin.Config{Faces: det})
	if err != nil {
		return err
	}
	paths, err := gallery.Render(ctx, eng, *out)
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	return err
}
