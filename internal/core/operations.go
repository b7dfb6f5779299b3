package core

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
)

// EditParams is a validated edit request.
type EditParams struct {
	Image       ImageRef
	Mask        ImageRef
	Instruction string
	Format      Format // empty keeps the input's aspect (v1)
}

// Edit applies an instruction to an image, stores the result and returns its URL.
func (s *Service) Edit(ctx context.Context, p Principal, in EditParams) (string, error) {
	if err := s.checkText("prompt", in.Instruction); err != nil {
		return "", err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", in.Image.URL, in.Image.Data, in.Mask.URL, in.Mask.Data, in.Instruction, in.Format)
	job := EditJob{Instruction: in.Instruction, Format: in.Format, Seed: h.Sum64()}
	var url string
	err := s.paid(ctx, p, OpEdit, func(ctx context.Context) error {
		var err error
		if job.Image, err = s.cfg.Images.Load(ctx, in.Image); err != nil {
			return err
		}
		if job.Mask, err = s.loadOptional(ctx, in.Mask); err != nil {
			return err
		}
		url, err = s.generate(ctx, p, job.Format, func(ctx context.Context) (image.Image, error) { return s.cfg.Engine.Edit(ctx, job) })
		return err
	}, func() any { return OutputBody{Output: url, RequestID: RequestID(ctx)} })
	return url, err
}

// FaceSwapParams is a validated face swap request.
type FaceSwapParams struct {
	Target ImageRef
	Face   ImageRef
	Mask   ImageRef
	Format Format // empty keeps the target's aspect (v1)
}

// FaceSwap swaps the face into the target image and returns the output URL. A missing
// face is INVALID_IMAGE naming the field it is missing from.
func (s *Service) FaceSwap(ctx context.Context, p Principal, in FaceSwapParams) (string, error) {
	if s.cfg.Swapper == nil {
		return "", E(CodeGenerationRejected, "Face swap is not available on this server.")
	}
	var url string
	err := s.paid(ctx, p, OpFaceSwap, func(ctx context.Context) error {
		job := FaceSwapJob{Format: in.Format}
		var err error
		if job.Target, err = s.cfg.Images.Load(ctx, in.Target); err != nil {
			return err
		}
		if job.Face, err = s.cfg.Images.Load(ctx, in.Face); err != nil {
			return err
		}
		if job.Mask, err = s.loadOptional(ctx, in.Mask); err != nil {
			return err
		}
		url, err = s.generate(ctx, p, job.Format, func(ctx context.Context) (image.Image, error) { return s.cfg.Swapper.FaceSwap(ctx, job) })
		switch {
		case errors.Is(err, ErrNoTargetFace):
			return &Error{Code: CodeInvalidImage, Message: "No face was found in the target image.", Err: err,
				Details: []Detail{{Field: in.Target.Field, Message: "no detectable face"}}}
		case errors.Is(err, ErrNoSourceFace):
			return &Error{Code: CodeInvalidImage, Message: "No face was found in the face image.", Err: err,
				Details: []Detail{{Field: in.Face.Field, Message: "no detectable face"}}}
		}
		return err
	}, func() any { return OutputBody{Output: url, RequestID: RequestID(ctx)} })
	return url, err
}

// Score rates a thumbnail image.
func (s *Service) Score(ctx context.Context, p Principal, ref ImageRef) (Score, error) {
	var out Score
	err := s.paid(ctx, p, OpScore, func(ctx context.Context) error {
		img, err := s.cfg.Images.Load(ctx, ref)
		if err != nil {
			return err
		}
		out, err = withStage(ctx, s.cfg.Timeouts.Scoring, CodeScoringTimeout, "Scoring timed out.",
			func(ctx context.Context) (Score, error) { return s.cfg.Engine.Score(ctx, img) })
		return err
	}, func() any { return ScoreBody{Score: out, RequestID: RequestID(ctx)} })
	return out, err
}

// TitleParams is a validated title request.
type TitleParams struct {
	Prompt string
	Image  ImageRef
	Count  int
}

// Titles generates title suggestions.
func (s *Service) Titles(ctx context.Context, p Principal, in TitleParams) (TitleResult, error) {
	if s.cfg.Titler == nil {
		return TitleResult{}, E(CodeGenerationRejected, "Title generation is not available on this server.")
	}
	if err := s.checkText("prompt", in.Prompt); err != nil {
		return TitleResult{}, err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", in.Prompt, in.Image.URL, in.Image.Data, in.Count)
	req := TitleRequest{Prompt: in.Prompt, Count: in.Count, Seed: h.Sum64()}
	var out TitleResult
	err := s.paid(ctx, p, OpTitle, func(ctx context.Context) error {
		var err error
		if req.Image, err = s.loadOptional(ctx, in.Image); err != nil {
			return err
		}
		out, err = withStage(ctx, s.cfg.Timeouts.Title, CodeTitleTimeout, "Title generation timed out.",
			func(ctx context.Context) (TitleResult, error) { return s.cfg.Titler.Titles(ctx, req) })
		if err == nil && len(out.Titles) == 0 {
			err = E(CodeGenerationRejected, "No titles could be generated for this request.")
		}
		return err
	}, func() any {
		return TitlesBody{Outputs: out.Titles, PromptCompacted: out.PromptCompacted, Reasoning: out.Reasoning, RequestID: RequestID(ctx)}
	})
	return out, err
}

// checkText applies the content policy to a text field.
func (s *Service) checkText(field, text string) error {
	if s.cfg.Policy == nil || text == "" {
		return nil
	}
	return s.cfg.Policy.Check(field, text)
}
