package training

import (
	"context"
	"errors"
	"strings"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
	"thumbforge/internal/memory"
)

// Reader downloads and reads version 1 training archives; it implements
// core.TrainingReader.
type Reader struct {
	Loader *inputs.Loader
	// Limits bounds the archive (zero fields: SPEC.md's 8 MB per image, 200 MB in total).
	Limits inputs.ZipLimits
}

// ReadZip downloads the zip at url through the SSRF-safe client and calls each with its
// first max PNG/JPEG images, one at a time: each is decoded (at the size training uses,
// its memory reserved from the budget) only when its turn comes, and given back once each
// returns. Every way the data can be unusable is a *core.TrainingDataError; a decode that
// could not get memory in time is TOO_MANY_REQUESTS.
func (r *Reader) ReadZip(ctx context.Context, url string, max int, each func(core.TrainingImage) error) error {
	lim := r.Limits
	lim.MaxImages = max
	total := lim.MaxTotalBytes
	if total <= 0 {
		total = inputs.DefaultZipTotalBytes
	}
	data, err := r.Loader.FetchBytes(ctx, url, total)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return downloadError(err)
	}
	err = inputs.EachTrainingImage(data, lim, func(name string, body []byte) error {
		ictx, end := memory.WithScope(ctx)
		defer end()
		img, err := r.Loader.Decode(ictx, body, "training_data")
		if err != nil {
			return entryError(name, err)
		}
		return each(core.TrainingImage{Name: name, Data: body, Image: img})
	})
	var ze *inputs.ZipError
	if errors.As(err, &ze) {
		return &core.TrainingDataError{Reason: ze.Reason, Err: err}
	}
	return err
}

// entryError says why one image of an archive cannot be used; a refusal for lack of
// memory now, or the client going away, stays what it is.
func entryError(name string, err error) error {
	e := core.AsError(err)
	switch {
	case e == nil || e.Code == core.CodeTooManyRequests:
		return err
	case e.Code == core.CodeImageTooLarge && len(e.Details) > 0:
		return inputs.EntryError(name, "is too large: "+e.Details[0].Message, err)
	case e.Code == core.CodeInvalidImage && len(e.Details) > 0 && !strings.Contains(e.Details[0].Message, "corrupt"):
		return inputs.EntryError(name, "cannot be used: "+e.Details[0].Message, err)
	}
	return inputs.EntryError(name, "is not a readable PNG or JPEG", err)
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
