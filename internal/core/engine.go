package core

import (
	"context"
	"errors"
	"image"
	"image/color"
	"time"
)

// Format is an output aspect ratio.
type Format string

// Output formats.
const (
	Format16x9 Format = "16:9"
	Format9x16 Format = "9:16"
	Format1x1  Format = "1:1"
)

// Formats lists the accepted formats.
var Formats = []Format{Format16x9, Format9x16, Format1x1}

// Size returns the output pixel size of the format; ok is false for unknown formats.
func (f Format) Size() (w, h int, ok bool) {
	switch f {
	case Format16x9:
		return 1280, 720, true
	case Format9x16:
		return 720, 1280, true
	case Format1x1:
		return 1080, 1080, true
	}
	return 0, 0, false
}

// Weight says how closely an output follows its reference image.
type Weight string

// Image weights.
const (
	WeightLow    Weight = "low"
	WeightMedium Weight = "medium"
	WeightHigh   Weight = "high"
)

// Models lists the version 2 model names; Version 1 names map onto them.
var Models = []string{"mdl_2", "mdl_3", "mdl_4", "mdl_4_5"}

// StyleParams is what style training learns from its images.
type StyleParams struct {
	LabMean  [3]float64   `json:"lab_mean"`
	LabStd   [3]float64   `json:"lab_std"`
	Palette  []color.RGBA `json:"palette"`
	Contrast float64      `json:"contrast"`
	Texture  float64      `json:"texture"`
}

// PersonaAssets is what the engine needs to place a persona in an output.
type PersonaAssets struct {
	// Faces are aligned face crops, best first.
	Faces []image.Image
}

// ThumbnailJob is one thumbnail to render.
type ThumbnailJob struct {
	Model  string // a v2 model name
	Format Format
	Prompt string
	// Instructions are the special instructions of the persona and style used.
	Instructions []string
	Reference    image.Image // nil for text to thumbnail
	Support      image.Image // optional; mdl_4 and mdl_4_5 only
	Weight       Weight
	Style        *StyleParams
	// StyleImages are the style's reference images, loaded only for engines that send
	// them to a model (StyleImager).
	StyleImages []image.Image
	Persona     *PersonaAssets
	// Seed is derived from the request so that equal requests give equal bytes.
	Seed uint64
	// ScoringTimeout bounds the scoring stage of models that score candidates.
	ScoringTimeout time.Duration
}

// EditJob is an image edit by instruction.
type EditJob struct {
	Image       image.Image
	Mask        image.Image // optional: the edit applies to its white region only
	Instruction string
	Format      Format // empty keeps the input's aspect
	Seed        uint64
}

// FaceSwapJob swaps the face of Face into Target.
type FaceSwapJob struct {
	Target image.Image
	Face   image.Image
	Mask   image.Image // optional: faces whose centre lies in the white region
	Format Format      // empty keeps the target's aspect
}

// Criterion is one part of a thumbnail score.
type Criterion struct {
	Name   string `json:"name"`
	Score  int    `json:"score"`
	Advice string `json:"advice,omitempty"`
}

// Score is a thumbnail's quality score, 0 to 100.
type Score struct {
	Score    int         `json:"score"`
	Criteria []Criterion `json:"criteria"`
	Advice   []string    `json:"advice"`
}

// Engine renders images. Implementations check ctx between steps.
type Engine interface {
	Thumbnail(ctx context.Context, job ThumbnailJob) (image.Image, error)
	Edit(ctx context.Context, job EditJob) (image.Image, error)
	Score(ctx context.Context, img image.Image) (Score, error)
}

// StyleImager is an Engine that uses a style's reference images (a generative engine
// sends them to its model); the service loads them only for such engines.
type StyleImager interface {
	UsesStyleImages() bool
}

// ErrModeration marks a refusal by an image model's safety system: the API answers
// GENERATION_REJECTED (v2) or CONTENT_POLICY_VIOLATION (v1).
var ErrModeration = errors.New("refused by the image model's safety system")

// Face is a detected face: its box, eye centres and detector confidence.
type Face struct {
	Box        image.Rectangle
	LeftEye    image.Point // the eye on the image's left side
	RightEye   image.Point
	Confidence float64
}

// FaceDetector finds faces in an image, largest first.
type FaceDetector interface {
	Detect(img image.Image) []Face
}

// ErrNoTargetFace and ErrNoSourceFace say which face swap input had no detectable face.
var (
	ErrNoTargetFace = errors.New("no face found in the target image")
	ErrNoSourceFace = errors.New("no face found in the face image")
)

// FaceSwapper swaps faces. It returns ErrNoTargetFace or ErrNoSourceFace when a face is
// missing.
type FaceSwapper interface {
	FaceSwap(ctx context.Context, job FaceSwapJob) (image.Image, error)
}

// ImageRef is an image input as sent: an https URL or a data URL, and the field it came in.
type ImageRef struct {
	Field string
	URL   string
	Data  string
}

// Empty reports whether the reference names no image.
func (r ImageRef) Empty() bool { return r.URL == "" && r.Data == "" }

// ImageLoader turns image inputs into decoded images, enforcing size and pixel limits.
// Its errors are INVALID_IMAGE or IMAGE_TOO_LARGE naming the field.
type ImageLoader interface {
	Load(ctx context.Context, ref ImageRef) (image.Image, error)
}

// TitleRequest asks for title suggestions.
type TitleRequest struct {
	Prompt string
	Image  image.Image
	Count  int
	Seed   uint64
}

// TitleResult is a set of title suggestions.
type TitleResult struct {
	Titles          []string
	Reasoning       string
	PromptCompacted bool
}

// Titler generates titles.
type Titler interface {
	Titles(ctx context.Context, req TitleRequest) (TitleResult, error)
}

// ContentPolicy refuses prompts with forbidden content (CONTENT_POLICY).
type ContentPolicy interface {
	Check(field, text string) error
}
