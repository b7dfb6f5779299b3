package api

import (
	"net/http"

	"thumbforge/internal/core"
	"thumbforge/internal/inputs"
)

// decodeFaceSwap validates a POST /v2/thumbnail/faceswap body.
func decodeFaceSwap(b *body) (core.FaceSwapParams, error) {
	var p core.FaceSwapParams
	p.Target = b.imageRef("image_url", "image_base64", true, true, true)
	p.Face = b.imageRef("face_image", "face_image_base64", true, true, true)
	if f, ok := b.required("format"); ok && b.oneOf("format", f, formatStr...) {
		p.Format = core.Format(f)
	}
	p.Mask = b.imageRef("mask_url", "mask_base64", false, true, true)
	return p, b.finish()
}

// decodeEdit validates a POST /v2/thumbnail/edit body.
func decodeEdit(b *body) (core.EditParams, error) {
	var p core.EditParams
	p.Image = b.imageRef("image_url", "image_base64", true, true, true)
	if s, ok := b.required("prompt"); ok {
		b.checkPrompt("prompt", s)
		p.Instruction = s
	}
	p.Mask = b.imageRef("mask_url", "mask_base64", false, true, true)
	if f, ok := b.str("format"); ok && b.oneOf("format", f, formatStr...) {
		p.Format = core.Format(f)
	}
	return p, b.finish()
}

type scoreResponse = core.ScoreBody

// TitleCount is how many suggestions /v2/title/text returns.
const TitleCount = 5

// decodeTitle validates a POST /v2/title/text body.
func decodeTitle(b *body) (core.TitleParams, error) {
	p := core.TitleParams{Count: TitleCount}
	if s, ok := b.str("prompt"); ok {
		b.checkPrompt("prompt", s)
		p.Prompt = s
	}
	p.Image = b.imageRef("support_image_url", "support_image_base64", false, false, true)
	p.Image.URL = videoThumbnail(p.Image.URL)
	if !b.has("prompt") && p.Image.Empty() && !b.has("support_image_url") && !b.has("support_image_base64") {
		b.problem("prompt", "send a prompt, a support image, or both")
	}
	return p, b.finish()
}

// videoThumbnail maps a video page URL of the video-sharing site to its thumbnail image;
// any other URL (or none) is returned as it is.
func videoThumbnail(u string) string {
	if thumb, ok := inputs.VideoThumbnailURL(u); ok {
		return thumb
	}
	return u
}

type titlesResponse = core.TitlesBody

// The validated requests as asynchronous work.
func faceSwapWork(p core.FaceSwapParams) core.Work {
	return core.Work{Kind: core.WorkFaceSwap, FaceSwap: &p}
}
func editWork(p core.EditParams) core.Work   { return core.Work{Kind: core.WorkEdit, Edit: &p} }
func scoreWork(p core.ImageRef) core.Work    { return core.Work{Kind: core.WorkScore, Score: &p} }
func titleWork(p core.TitleParams) core.Work { return core.Work{Kind: core.WorkTitle, Title: &p} }

func (s *Server) faceSwapV2(r *http.Request, p core.FaceSwapParams) (any, error) {
	url, err := s.svc.FaceSwap(r.Context(), principal(r), p)
	return outputResponse{Output: url, RequestID: core.RequestID(r.Context())}, err
}

func (s *Server) editV2(r *http.Request, p core.EditParams) (any, error) {
	url, err := s.svc.Edit(r.Context(), principal(r), p)
	return outputResponse{Output: url, RequestID: core.RequestID(r.Context())}, err
}

// decodeScore validates a POST /v2/thumbnail/score body.
func decodeScore(b *body) (core.ImageRef, error) {
	ref := b.imageRef("image_url", "image_base64", true, true, true)
	return ref, b.finish()
}

func (s *Server) scoreV2(r *http.Request, ref core.ImageRef) (any, error) {
	sc, err := s.svc.Score(r.Context(), principal(r), ref)
	return scoreResponse{Score: sc, RequestID: core.RequestID(r.Context())}, err
}

func (s *Server) titleV2(r *http.Request, p core.TitleParams) (any, error) {
	res, err := s.svc.Titles(r.Context(), principal(r), p)
	return titlesResponse{Outputs: res.Titles, PromptCompacted: res.PromptCompacted,
		Reasoning: res.Reasoning, RequestID: core.RequestID(r.Context())}, err
}
