package training

import (
	"context"
	"errors"
	"strings"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
)

// Reader downloads and reads version 1 training archives; it implements
// core.TrainingReader.
type Reader struct {
	Loader *inputs.Loader
	// Limits bounds the archive (zero fields: SPEC.md's 8 MB per image, 200 MB in total).
	Limits inputs.ZipLimits
}

// ReadZip downloads the zip at url through the SSRF-safe client and returns its first max
// PNG/JPEG images. Every way the data can be unusable is a *core.TrainingDataError.
func (r *Reader) ReadZip(ctx context.Context, url string, max int) ([]core.TrainingImage, error) {
	lim := r.Limits
	lim.MaxImages = max
	total := lim.MaxTotalBytes
	if total <= 0 {
		total = inputs.DefaultZipTotalBytes
	}
	data, err := r.Loader.FetchBytes(ctx, url, total)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, downloadError(err)
	}
	imgs, err := inputs.ReadTrainingZip(data, lim)
	if err != nil {
		var ze *inputs.ZipError
		if errors.As(err, &ze) {
			return nil, &core.TrainingDataError{Reason: ze.Reason, Err: err}
		}
		return nil, err
	}
	out := make([]core.TrainingImage, len(imgs))
	for i, im := range imgs {
		out[i] = core.TrainingImage{Name: im.Name, Data: im.Data, Image: im.Image}
	}
	return out, nil
}

// downloadError explains a failed download of the archive without internal details.
func downloadError(err error) error {
	reason := "the training_data URL could not be downloaded"
	if e := core.AsError(err); e != nil {
		switch {
		case e.Code == core.CodeImageTooLarge:
			reason = "the archive is larger than the 200 MB limit"
		case len(e.Details) > 0:
			// The loader's reasons speak of "the image URL"; keep only what they add.
			msg := e.Details[0].Message
			switch {
			case strings.Contains(msg, "http or https"):
				reason = "the training_data URL must be an http or https URL"
			case strings.Contains(msg, " ("):
				reason += msg[strings.Index(msg, " ("):]
			}
		}
	}
	return &core.TrainingDataError{Reason: reason, Err: err}
}
