package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
)

// CustomParams is a validated creation request: ZipURL (v1) or Images (v2).
type CustomParams struct {
	Mode   Mode
	Name   string
	ZipURL string
	Images []ImageRef
	// SpecialInstructions are set at creation (version 2); the API checked their rules.
	SpecialInstructions string
}

// CreateCustom creates a persona or style and queues its training. The record and the
// hold of the training price are stored together first (no hold without its owner); then
// a v1 zip is downloaded and checked (a *TrainingDataError when unusable), the inputs are
// saved under keys the record already names, and the job is queued. v2 URLs are fetched
// by the job. The hold is charged when training completes, released when it fails.
func (s *Service) CreateCustom(ctx context.Context, p Principal, in CustomParams) (*CustomModel, error) {
	if s.cfg.Jobs == nil {
		return nil, E(CodeGenerationRejected, "Training is not available on this server.")
	}
	if msg := CheckCustomName(in.Name, in.ZipURL == ""); msg != "" {
		return nil, Invalid([]Detail{{Field: "name", Message: msg}})
	}
	if IsReservedName(in.Name) {
		return nil, &Error{Code: CodeNameReserved, Message: fmt.Sprintf("The name %q is reserved.", in.Name),
			Details: []Detail{{Field: "name", Message: "reserved name"}}}
	}
	if err := s.checkText("special_instructions", in.SpecialInstructions); err != nil {
		return nil, err
	}
	if err := s.freeName(ctx, p, in.Mode, in.Name); err != nil {
		return nil, err
	}
	price, ok := s.cfg.Prices.Price(OpTraining)
	if !ok {
		return nil, Wrap(CodeInternal, errors.New("no price for training"), "The service is misconfigured.")
	}
	m := &CustomModel{ID: uuid.Must(uuid.NewV7()), AccountID: p.Account.ID, Mode: in.Mode, Name: in.Name,
		SpecialInstructions: in.SpecialInstructions}
	src := TrainingSource{ZipURL: in.ZipURL, Pending: true}
	for i, ref := range in.Images {
		sr := SourceRef{Field: ref.Field, URL: ref.URL}
		if ref.Data != "" {
			sr.DataKey = CustomKey(m.ID, fmt.Sprintf("input-%d.dataurl", i))
		}
		src.Refs = append(src.Refs, sr)
	}
	if err := setSource(m, src); err != nil {
		return nil, err
	}
	if err := s.cfg.Store.CreateTraining(ctx, m, price); err != nil {
		if errors.Is(err, ErrConflict) {
			return nil, nameTaken(m.Mode, m.Name)
		}
		return nil, holdError(err, price)
	}
	s.Step(StepCustomCreated)
	// What follows is bounded by the creation's deadline, from which the reconciler tells
	// a creation at work from one that died.
	cctx, cancel := context.WithTimeout(ctx, s.cfg.Timeouts.Inputs)
	defer cancel()
	if err := s.saveSource(cctx, m, in, src); err != nil {
		s.abandon(ctx, m)
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, Wrap(CodeCancelled, err, "The request was cancelled by the client.")
		}
		if AsError(err) == nil && !isTrainingData(err) {
			return nil, Wrap(CodeInternal, err, "Internal error.")
		}
		return nil, err
	}
	s.Step(StepCustomSaved)
	if err := s.cfg.Jobs.EnqueueTraining(ctx, m.ID); err != nil {
		_ = s.FailTraining(context.WithoutCancel(ctx), m.ID, "Training could not be queued.")
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	s.Step(StepCustomQueued)
	return m, nil
}

func isTrainingData(err error) bool {
	var td *TrainingDataError
	return errors.As(err, &td)
}

func nameTaken(mode Mode, name string) error {
	return &Error{Code: CodeNameAlreadyExists, Message: fmt.Sprintf("A %s named %q already exists.", mode, name),
		Details: []Detail{{Field: "name", Message: "name already used"}}}
}

// setSource stores src as m's Source.
func setSource(m *CustomModel, src TrainingSource) error {
	b, err := json.Marshal(src)
	if err != nil {
		return Wrap(CodeInternal, err, "Internal error.")
	}
	m.Source = string(b)
	return nil
}

// abandon undoes a creation that failed before its job was queued: the record fails
// (releasing its hold in the same transaction), its blobs go, then the record itself, as
// the client is told the creation failed. A crash in between leaves a failed record,
// settled.
func (s *Service) abandon(ctx context.Context, m *CustomModel) {
	ctx = context.WithoutCancel(ctx)
	if err := s.FailTraining(ctx, m.ID, "Training could not start."); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "abandon custom model", "id", m.ID, "err", err)
		return
	}
	if _, err := s.cfg.Store.DeleteCustomModel(ctx, m.AccountID, m.ID); err != nil && !errors.Is(err, ErrNotFound) {
		s.cfg.Logger.ErrorContext(ctx, "delete abandoned custom model", "id", m.ID, "err", err)
	}
}

// markSource stores src as the record's source, unless the record is no longer
// processing (the reconciler failed a creation that outlived its deadline).
func (s *Service) markSource(ctx context.Context, m *CustomModel, src TrainingSource) error {
	if err := setSource(m, src); err != nil {
		return err
	}
	_, err := s.cfg.Store.UpdateCustomModel(ctx, m.ID, func(r *CustomModel) error {
		if r.Status != StatusProcessing {
			return ErrTrainingFinished
		}
		r.Source = m.Source
		return nil
	})
	return err
}

// freeName fails with NAME_ALREADY_EXISTS when the account has a live record of that mode
// and name, or of a look-alike name (NameKey). A failed one gives its name up: it is deleted.
func (s *Service) freeName(ctx context.Context, p Principal, mode Mode, name string) error {
	all, err := s.cfg.Store.ListCustomModels(ctx, p.Account.ID)
	if err != nil {
		return Wrap(CodeInternal, err, "Internal error.")
	}
	key := NameKey(name)
	for _, m := range all {
		if m.Mode != mode || NameKey(m.Name) != key {
			continue
		}
		if m.Status != StatusFailed {
			return &Error{Code: CodeNameAlreadyExists, Message: fmt.Sprintf("A %s named %q already exists.", mode, name),
				Details: []Detail{{Field: "name", Message: "name already used"}}}
		}
		if _, err := s.deleteRecord(ctx, p, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// saveSource stores the training images under keys the record names or can derive (a v1
// zip's, as it is read, one image at a time: train-NN with the image's extension), then
// marks the source saved.
func (s *Service) saveSource(ctx context.Context, m *CustomModel, in CustomParams, src TrainingSource) error {
	put := func(i int, key string, data []byte, ctype string) error {
		if err := s.cfg.Blobs.Put(ctx, key, data, ctype); err != nil {
			return Wrap(CodeInternal, err, "Internal error.")
		}
		if i == 0 {
			s.Step(StepCustomBlob)
		}
		return nil
	}
	if in.ZipURL != "" {
		err := s.readZip(ctx, in.Mode, in.ZipURL, func(i int, im TrainingImage) error {
			ext, ctype := ".jpg", "image/jpeg"
			if http.DetectContentType(im.Data) == "image/png" {
				ext, ctype = ".png", "image/png"
			}
			key := trainKey(m.ID, i, ext)
			src.ImageKeys = append(src.ImageKeys, key)
			return put(i, key, im.Data, ctype)
		})
		if err != nil {
			return err
		}
	}
	for i, ref := range src.Refs {
		if ref.DataKey != "" {
			if err := put(i, ref.DataKey, []byte(in.Images[i].Data), "text/plain"); err != nil {
				return err
			}
		}
	}
	src.Pending = false
	return s.markSource(ctx, m, src)
}

// trainKey is where a v1 record's i-th training image is kept.
func trainKey(id uuid.UUID, i int, ext string) string {
	return CustomKey(id, fmt.Sprintf("train-%02d%s", i, ext))
}

// readZip reads a v1 archive one image at a time, giving each to keep; a persona needs a
// detectable face in at least one image (looked for until one is found).
func (s *Service) readZip(ctx context.Context, mode Mode, url string, keep func(int, TrainingImage) error) error {
	if s.cfg.Training == nil {
		return E(CodeGenerationRejected, "Training from archives is not available on this server.")
	}
	max := MaxStyleImages
	if mode == ModePersona {
		max = MaxPersonaImages
	}
	face := mode != ModePersona || s.cfg.Faces == nil
	n := 0
	err := s.cfg.Training.ReadZip(ctx, url, max, func(im TrainingImage) error {
		if !face {
			face = len(s.cfg.Faces.Detect(im.Image)) > 0
		}
		n++
		return keep(n-1, im)
	})
	switch {
	case err != nil:
		return err
	case !face:
		return &TrainingDataError{Reason: "no face could be detected in any image of the archive"}
	}
	return nil
}
