package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"math"

	"github.com/google/uuid"
)

// ThumbnailParams is a validated thumbnail request, from either API version.
type ThumbnailParams struct {
	Model     string // a v2 model name
	Format    Format
	Prompt    string
	Reference ImageRef // empty for text to thumbnail
	Support   ImageRef
	Weight    Weight
	PersonaID string
	StyleID   string
}

// seed derives a deterministic seed from the request's content.
func (p ThumbnailParams) seed() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s",
		p.Model, p.Format, p.Prompt, p.Reference.URL, p.Reference.Data, p.Support.URL,
		p.Support.Data, p.Weight, p.PersonaID, p.StyleID)
	return h.Sum64()
}

// Thumbnail renders a thumbnail, stores it and returns its signed URL.
func (s *Service) Thumbnail(ctx context.Context, p Principal, in ThumbnailParams) (string, error) {
	if err := s.checkText("prompt", in.Prompt); err != nil {
		return "", err
	}
	job := ThumbnailJob{
		Model: in.Model, Format: in.Format, Prompt: in.Prompt, Weight: in.Weight,
		Seed: in.seed(), ScoringTimeout: s.cfg.Timeouts.Scoring,
	}
	if job.Weight == "" {
		job.Weight = WeightMedium
	}
	if err := s.applyCustom(ctx, p, in.PersonaID, in.StyleID, &job); err != nil {
		return "", err
	}
	var url string
	err := s.paid(ctx, p, OpThumbnailPrefix+in.Model, func(ctx context.Context) error {
		var err error
		if job.Reference, err = s.loadOptional(ctx, in.Reference); err != nil {
			return err
		}
		if job.Format == "" {
			job.Format = ClosestFormat(job.Reference)
		}
		if job.Support, err = s.loadOptional(ctx, in.Support); err != nil {
			return err
		}
		url, err = s.generate(ctx, p, job.Format, func(ctx context.Context) (image.Image, error) { return s.cfg.Engine.Thumbnail(ctx, job) })
		return err
	}, func() any { return OutputBody{Output: url, RequestID: RequestID(ctx)} })
	return url, err
}

func (s *Service) loadOptional(ctx context.Context, ref ImageRef) (image.Image, error) {
	if ref.Empty() {
		return nil, nil
	}
	return s.cfg.Images.Load(ctx, ref)
}

// applyCustom resolves the persona and style ids of a request into the job.
func (s *Service) applyCustom(ctx context.Context, p Principal, personaID, styleID string, job *ThumbnailJob) error {
	if personaID != "" {
		m, err := s.usableCustom(ctx, p, personaID, ModePersona, CodeInvalidPersona)
		if err != nil {
			return err
		}
		assets, err := s.personaAssets(ctx, m)
		if err != nil {
			return err
		}
		job.Persona = assets
		if m.SpecialInstructions != "" {
			job.Instructions = append(job.Instructions, m.SpecialInstructions)
		}
	}
	if styleID != "" {
		m, err := s.usableCustom(ctx, p, styleID, ModeStyle, CodeInvalidStyle)
		if err != nil {
			return err
		}
		var sp StyleParams
		if err := json.Unmarshal([]byte(m.Params), &sp); err != nil {
			return Wrap(CodeInternal, err, "Internal error.")
		}
		job.Style = &sp
		if si, ok := s.cfg.Engine.(StyleImager); ok && si.UsesStyleImages() {
			if job.StyleImages, err = s.blobImages(ctx, m.ReferenceKeys); err != nil {
				return err
			}
		}
		if m.SpecialInstructions != "" {
			job.Instructions = append(job.Instructions, m.SpecialInstructions)
		}
	}
	return nil
}

// usableCustom returns the account's completed custom model of the mode, or code.
func (s *Service) usableCustom(ctx context.Context, p Principal, raw string, mode Mode, code Code) (*CustomModel, error) {
	field := string(mode)
	id, err := uuid.Parse(raw)
	if err != nil {
		return nil, &Error{Code: code, Message: fmt.Sprintf("The %s id is malformed.", field),
			Details: []Detail{{Field: field, Message: "must be a " + field + " id"}}}
	}
	m, err := s.cfg.Store.GetCustomModel(ctx, p.Account.ID, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, &Error{Code: code, Message: fmt.Sprintf("No %s with this id exists.", field),
			Details: []Detail{{Field: field, Message: "unknown " + field}}}
	case err != nil:
		return nil, Wrap(CodeInternal, err, "Internal error.")
	case m.Mode != mode:
		return nil, &Error{Code: code, Message: fmt.Sprintf("The id names a %s, not a %s.", m.Mode, mode),
			Details: []Detail{{Field: field, Message: "wrong kind of custom model"}}}
	case m.Status != StatusCompleted:
		return nil, &Error{Code: code, Message: fmt.Sprintf("The %s is not ready (status %s).", field, m.Status),
			Details: []Detail{{Field: field, Message: "not completed"}}}
	}
	return m, nil
}

// PersonaParams is what persona training stores: the blob keys of its aligned face crops.
type PersonaParams struct {
	FaceKeys []string `json:"face_keys"`
}

func (s *Service) personaAssets(ctx context.Context, m *CustomModel) (*PersonaAssets, error) {
	var pp PersonaParams
	if err := json.Unmarshal([]byte(m.Params), &pp); err != nil {
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	faces, err := s.blobImages(ctx, pp.FaceKeys)
	if err != nil {
		return nil, err
	}
	return &PersonaAssets{Faces: faces}, nil
}

// blobImages reads and decodes images the service stored itself (face crops, style
// references); a failure is internal.
func (s *Service) blobImages(ctx context.Context, keys []string) ([]image.Image, error) {
	var out []image.Image
	for _, k := range keys {
		data, err := s.cfg.Blobs.Get(ctx, k)
		if err != nil {
			return nil, Wrap(CodeInternal, err, "Internal error.")
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, Wrap(CodeInternal, err, "Internal error.")
		}
		out = append(out, img)
	}
	return out, nil
}

// ClosestFormat picks the output format nearest the image's aspect ratio (version 1
// recreate has no format field); without a reference it is 16:9.
func ClosestFormat(img image.Image) Format {
	if img == nil {
		return Format16x9
	}
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return Format16x9
	}
	aspect := float64(b.Dx()) / float64(b.Dy())
	best, bestDiff := Format16x9, math.Inf(1)
	for _, f := range Formats {
		w, h, _ := f.Size()
		if d := math.Abs(math.Log(aspect) - math.Log(float64(w)/float64(h))); d < bestDiff {
			best, bestDiff = f, d
		}
	}
	return best
}
