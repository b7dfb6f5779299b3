package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
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
	// Pending is true while the creating request stores the images: the keys above are
	// where they go, not yet what exists. A record whose source is still pending past its
	// creation's deadline was cut short by a crash (Service.Settlement).
	Pending bool `json:"pending,omitempty"`
}

// SourcePending reports that a record's training images are not all saved yet.
func SourcePending(m *CustomModel) bool {
	if m.Source == "" {
		return true
	}
	var src TrainingSource
	return json.Unmarshal([]byte(m.Source), &src) != nil || src.Pending
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

// CustomKey is the blob key of a record's file name: every blob of a record is under
// custom/<id>/.
func CustomKey(id uuid.UUID, name string) string { return fmt.Sprintf("custom/%s/%s", id, name) }

// RefKey is where training stores the i-th v2 reference image of a record.
func RefKey(id uuid.UUID, i int) string { return CustomKey(id, fmt.Sprintf("ref-%d.jpg", i)) }

// FaceKey is where persona training stores the i-th face crop (best first).
func FaceKey(id uuid.UUID, i int) string { return CustomKey(id, fmt.Sprintf("face-%02d.jpg", i)) }

// PortraitKey is where style training stores its sample portrait.
func PortraitKey(id uuid.UUID) string { return CustomKey(id, "portrait.jpg") }

// RecordKeys lists every blob a record owns or may own: training inputs, references,
// portrait and, for a persona, its face crops; with them, every key a training job could
// have written before it failed (references, crops and portrait of as many images as the
// source has), so that deleting a failed record leaves nothing behind.
func RecordKeys(m *CustomModel) []string {
	var src TrainingSource
	_ = json.Unmarshal([]byte(m.Source), &src)
	keys := sourceKeys(src)
	keys = append(keys, m.ReferenceKeys...)
	if m.PortraitKey != "" {
		keys = append(keys, m.PortraitKey)
	}
	if src.Pending && src.ZipURL != "" {
		// A creation cut short while reading its zip: the images it may have stored.
		for i := range MaxPersonaImages {
			keys = append(keys, trainKey(m.ID, i, ".jpg"), trainKey(m.ID, i, ".png"))
		}
	}
	for i := range src.Refs {
		keys = append(keys, RefKey(m.ID, i))
	}
	if m.Mode == ModePersona {
		for i := range len(src.ImageKeys) + len(src.Refs) {
			keys = append(keys, FaceKey(m.ID, i))
		}
	} else {
		keys = append(keys, PortraitKey(m.ID))
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
