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

func (s *Server) v2FaceSwap(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p, err := decodeFaceSwap(b)
	if err != nil {
		return err
	}
	url, err := s.svc.FaceSwap(r.Context(), principal(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, outputResponse{Output: url, RequestID: core.RequestID(r.Context())})
	return nil
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

func (s *Server) v2Edit(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p, err := decodeEdit(b)
	if err != nil {
		return err
	}
	url, err := s.svc.Edit(r.Context(), principal(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, outputResponse{Output: url, RequestID: core.RequestID(r.Context())})
	return nil
}

type scoreResponse struct {
	core.Score
	RequestID string `json:"request_id"`
}

func (s *Server) v2Score(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	ref := b.imageRef("image_url", "image_base64", true, true, true)
	if err := b.finish(); err != nil {
		return err
	}
	sc, err := s.svc.Score(r.Context(), principal(r), ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, scoreResponse{Score: sc, RequestID: core.RequestID(r.Context())})
	return nil
}

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
	if p.Image.URL != "" {
		if thumb, ok := inputs.VideoThumbnailURL(p.Image.URL); ok {
			p.Image.URL = thumb
		}
	}
	if !b.has("prompt") && p.Image.Empty() && !b.has("support_image_url") && !b.has("support_image_base64") {
		b.problem("prompt", "send a prompt, a support image, or both")
	}
	return p, b.finish()
}

type titlesResponse struct {
	Outputs         []string `json:"outputs"`
	PromptCompacted bool     `json:"prompt_compacted"`
	Reasoning       string   `json:"reasoning"`
	RequestID       string   `json:"request_id"`
}

func (s *Server) v2Title(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p, err := decodeTitle(b)
	if err != nil {
		return err
	}
	res, err := s.svc.Titles(r.Context(), principal(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, titlesResponse{Outputs: res.Titles, PromptCompacted: res.PromptCompacted,
		Reasoning: res.Reasoning, RequestID: core.RequestID(r.Context())})
	return nil
}
