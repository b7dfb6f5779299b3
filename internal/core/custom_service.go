package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// TrainingQueue runs training in the background; queued jobs survive restarts.
type TrainingQueue interface {
	EnqueueTraining(ctx context.Context, id uuid.UUID) error
}

// TrainingImage is one usable training image: its encoded bytes and its pixels.
type TrainingImage struct {
	Name  string
	Data  []byte
	Image image.Image
}

// TrainingReader reads version 1 training archives.
type TrainingReader interface {
	// ReadZip downloads the zip at url and calls each with its first max usable images,
	// one at a time (an image is gone once each returns). Unusable data (unreachable URL,
	// corrupt zip, no PNG/JPEG) is a *TrainingDataError; an error of each is returned.
	ReadZip(ctx context.Context, url string, max int, each func(TrainingImage) error) error
}

// TrainingDataError says why training data is unusable; Reason is safe to show a client.
type TrainingDataError struct {
	Reason string
	Err    error
}

func (e *TrainingDataError) Error() string { return "training data: " + e.Reason }

func (e *TrainingDataError) Unwrap() error { return e.Err }

// TrainingSource is where a record's training images are, stored as CustomModel.Source so
// that a job started after a restart finds them.
type TrainingSource struct {
	ZipURL string `json:"zip_url,omitempty"`
	// ImageKeys are blobs of the encoded images read from a v1 zip at creation.
	ImageKeys []string `json:"image_keys,omitempty"`
	// Refs are v2 inputs, fetched by the job.
	Refs []SourceRef `json:"refs,omitempty"`
}

// SourceRef is a v2 image input: an https URL, or the blob key where its data URL was saved.
type SourceRef struct {
	Field   string `json:"field"`
	URL     string `json:"url,omitempty"`
	DataKey string `json:"data_key,omitempty"`
}

// Image limits of training (SPEC.md): v1 zips give 1..20 persona or 1..3 style images;
// v2 takes exactly 3.
const (
	MaxPersonaImages = 20
	MaxStyleImages   = 3
	V2TrainingImages = 3
	// MaxNameLen and MaxInstructions bound a record's name and special instructions.
	MaxNameLen      = 25
	MaxInstructions = 300
)

// reservedNames cannot be used as persona or style names, nor can names that look like
// them (IsReservedName).
var reservedNames = []string{"default", "none", "null", "undefined", "admin", "system", "thumbforge", "persona", "style", "custom"}

// ReservedNames returns the names no persona or style may take, nor any look-alike.
func ReservedNames() []string { return append([]string(nil), reservedNames...) }

// CheckCustomName returns what is wrong with a name, or "". Version 1 (strict false) only
// bounds the length; version 2 also limits the characters.
func CheckCustomName(name string, strict bool) string {
	n := utf8.RuneCountInString(name)
	switch {
	case n < 1 || strings.TrimSpace(name) == "":
		return "must not be empty"
	case n > MaxNameLen:
		return fmt.Sprintf("must be at most %d characters long", MaxNameLen)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) >= 0:
		return "must not contain control characters"
	}
	if strict {
		for _, r := range name {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && r != '-' && r != '_' {
				return "may contain only letters, digits, whitespace, hyphens and underscores"
			}
		}
	}
	return ""
}

// IsReservedName reports whether name is a reserved name or looks like one (NameKey,
// diacritics aside).
func IsReservedName(name string) bool {
	return reservedKeys[bareKey(name)]
}

// CustomParams is a validated creation request: ZipURL (v1) or Images (v2).
type CustomParams struct {
	Mode   Mode
	Name   string
	ZipURL string
	Images []ImageRef
	// SpecialInstructions are set at creation (version 2); the API checked their rules.
	SpecialInstructions string
}

// CreateCustom creates a persona or style and queues its training. A v1 zip is downloaded
// and checked first (a *TrainingDataError when unusable); v2 images are fetched by the
// job. The training price is held now, charged on completion, released on failure.
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
	res, err := s.cfg.Store.Reserve(ctx, p.Account.ID, price, OpTraining)
	switch {
	case errors.Is(err, ErrInsufficient):
		return nil, E(CodeInsufficientCredits, "The account's balance of credits cannot cover training (price %d).", price)
	case errors.Is(err, ErrPaymentFailed):
		return nil, E(CodeSmartBalanceFailed, "Automatic top-up is blocked by a failed or unpaid top-up invoice.")
	case err != nil:
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	m := &CustomModel{ID: uuid.Must(uuid.NewV7()), AccountID: p.Account.ID, Mode: in.Mode, Name: in.Name,
		Status: StatusProcessing, Stage: StageQueued, ReservationID: &res.ID, SpecialInstructions: in.SpecialInstructions}
	src, err := s.saveSource(ctx, m, in)
	if err == nil {
		err = s.insertCustom(ctx, p, m, src)
	}
	if err != nil {
		s.release(ctx, res.ID)
		s.deleteKeys(ctx, sourceKeys(src))
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, Wrap(CodeCancelled, err, "The request was cancelled by the client.")
		}
		return nil, err
	}
	if err := s.cfg.Jobs.EnqueueTraining(ctx, m.ID); err != nil {
		_ = s.FailTraining(context.WithoutCancel(ctx), m.ID, "Training could not be queued.")
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	return m, nil
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

// saveSource stores what the job needs to find the training images after a restart.
func (s *Service) saveSource(ctx context.Context, m *CustomModel, in CustomParams) (TrainingSource, error) {
	var src TrainingSource
	if in.ZipURL != "" {
		src.ZipURL = in.ZipURL
		err := s.readZip(ctx, in.Mode, in.ZipURL, func(i int, im TrainingImage) error {
			ext, ctype := ".jpg", "image/jpeg"
			if http.DetectContentType(im.Data) == "image/png" {
				ext, ctype = ".png", "image/png"
			}
			key := fmt.Sprintf("custom/%s/train-%02d%s", m.ID, i, ext)
			if err := s.cfg.Blobs.Put(ctx, key, im.Data, ctype); err != nil {
				return Wrap(CodeInternal, err, "Internal error.")
			}
			src.ImageKeys = append(src.ImageKeys, key)
			return nil
		})
		return src, err
	}
	for i, ref := range in.Images {
		sr := SourceRef{Field: ref.Field, URL: ref.URL}
		if ref.Data != "" {
			sr.DataKey = fmt.Sprintf("custom/%s/input-%d.dataurl", m.ID, i)
			if err := s.cfg.Blobs.Put(ctx, sr.DataKey, []byte(ref.Data), "text/plain"); err != nil {
				return src, Wrap(CodeInternal, err, "Internal error.")
			}
		}
		src.Refs = append(src.Refs, sr)
	}
	return src, nil
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

func (s *Service) insertCustom(ctx context.Context, p Principal, m *CustomModel, src TrainingSource) error {
	b, err := json.Marshal(src)
	if err != nil {
		return Wrap(CodeInternal, err, "Internal error.")
	}
	m.Source = string(b)
	err = s.cfg.Store.CreateCustomModel(ctx, m)
	switch {
	case errors.Is(err, ErrConflict):
		return &Error{Code: CodeNameAlreadyExists, Message: fmt.Sprintf("A %s named %q already exists.", m.Mode, m.Name),
			Details: []Detail{{Field: "name", Message: "name already used"}}}
	case err != nil:
		return Wrap(CodeInternal, err, "Internal error.")
	}
	return nil
}

// GetCustom returns the account's record; malformed, unknown and foreign ids are NOT_FOUND.
func (s *Service) GetCustom(ctx context.Context, p Principal, rawID string) (*CustomModel, error) {
	id, err := uuid.Parse(rawID)
	if err != nil {
		return nil, E(CodeNotFound, "No persona or style with this id exists.")
	}
	m, err := s.cfg.Store.GetCustomModel(ctx, p.Account.ID, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, E(CodeNotFound, "No persona or style with this id exists.")
	case err != nil:
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	return m, nil
}

// DeleteCustom deletes the account's record and its blobs; CANNOT_DELETE_PROCESSING while
// it trains.
func (s *Service) DeleteCustom(ctx context.Context, p Principal, rawID string) (*CustomModel, error) {
	m, err := s.GetCustom(ctx, p, rawID)
	if err != nil {
		return nil, err
	}
	return s.deleteRecord(ctx, p, m.ID)
}

func (s *Service) deleteRecord(ctx context.Context, p Principal, id uuid.UUID) (*CustomModel, error) {
	m, err := s.cfg.Store.DeleteCustomModel(ctx, p.Account.ID, id)
	switch {
	case errors.Is(err, ErrProcessing):
		return nil, E(CodeCannotDeleteProc, "The record is still processing; delete it once training has finished.")
	case errors.Is(err, ErrNotFound):
		return nil, E(CodeNotFound, "No persona or style with this id exists.")
	case err != nil:
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	s.deleteKeys(ctx, RecordKeys(m))
	return m, nil
}

// SetSpecialInstructions replaces the record's special instructions (at most 300 chars).
func (s *Service) SetSpecialInstructions(ctx context.Context, p Principal, rawID, text string) (*CustomModel, error) {
	if utf8.RuneCountInString(text) > MaxInstructions {
		return nil, Invalid([]Detail{{Field: "special_instructions", Message: fmt.Sprintf("must be at most %d characters long", MaxInstructions)}})
	}
	if err := s.checkText("special_instructions", text); err != nil {
		return nil, err
	}
	m, err := s.GetCustom(ctx, p, rawID)
	if err != nil {
		return nil, err
	}
	m, err = s.cfg.Store.UpdateCustomModel(ctx, m.ID, func(m *CustomModel) error {
		m.SpecialInstructions = text
		return nil
	})
	if err != nil {
		return nil, Wrap(CodeInternal, err, "Internal error.")
	}
	return m, nil
}

// RecordKeys lists every blob a record owns: training inputs, references, portrait and,
// for a persona, its face crops.
func RecordKeys(m *CustomModel) []string {
	var src TrainingSource
	_ = json.Unmarshal([]byte(m.Source), &src)
	keys := sourceKeys(src)
	keys = append(keys, m.ReferenceKeys...)
	if m.PortraitKey != "" {
		keys = append(keys, m.PortraitKey)
	}
	var pp PersonaParams
	if m.Mode == ModePersona && json.Unmarshal([]byte(m.Params), &pp) == nil {
		keys = append(keys, pp.FaceKeys...)
	}
	return keys
}

func sourceKeys(src TrainingSource) []string {
	keys := append([]string(nil), src.ImageKeys...)
	for _, r := range src.Refs {
		if r.DataKey != "" {
			keys = append(keys, r.DataKey)
		}
	}
	return keys
}

// deleteKeys deletes blobs, once each; a missing blob is already gone.
func (s *Service) deleteKeys(ctx context.Context, keys []string) {
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if err := s.cfg.Blobs.Delete(context.WithoutCancel(ctx), k); err != nil && !errors.Is(err, ErrNotFound) {
			s.cfg.Logger.WarnContext(ctx, "delete custom model blob", "key", k, "err", err)
		}
	}
}
