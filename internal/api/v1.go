package api

import (
	"net/http"

	"thumbforge/internal/core"
)

// v1Models maps version 1 model names onto their version 2 peers (docs/API.md).
var v1Models = map[string]string{"mdl-1": "mdl_2", "mdl-2": "mdl_2", "mdl-3": "mdl_3"}

type v1Output struct {
	Output string `json:"output"`
}

// lenient marks every property as known: version 1 ignores properties it does not use.
func (b *body) lenient() {
	for k := range b.raw {
		b.seen[k] = true
	}
}

// finishV1 ends a version 1 body: unknown properties are ignored.
func (b *body) finishV1() error {
	b.lenient()
	return b.finish()
}

// v1Prompt reads a prompt: the shared text rules, links allowed (version 1 has no rule
// against them).
func (b *body) v1Prompt(required bool) string {
	var s string
	var ok bool
	if required {
		s, ok = b.required("prompt")
	} else {
		s, ok = b.str("prompt")
	}
	if ok {
		if msg := textProblem(s, 1, MaxPrompt, true); msg != "" {
			b.problem("prompt", msg)
		}
	}
	return s
}

// v1Model reads a version 1 model name and returns its v2 peer.
func (b *body) v1Model(def string, allowed ...string) string {
	m, ok := b.str("model")
	if !ok {
		if def == "" {
			b.problem("model", "is required")
			return ""
		}
		m = def
	}
	if !b.oneOf("model", m, allowed...) {
		return ""
	}
	return v1Models[m]
}

// decodeV1Thumbnail validates a POST /v1/thumbnail body.
func decodeV1Thumbnail(b *body) (core.ThumbnailParams, error) {
	p := core.ThumbnailParams{Weight: core.WeightMedium, Format: core.Format16x9}
	p.Prompt = b.v1Prompt(true)
	if f, ok := b.str("format"); ok && b.oneOf("format", f, formatStr...) {
		p.Format = core.Format(f)
	}
	p.Model = b.v1Model("mdl-3", "mdl-1", "mdl-2", "mdl-3")
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	return p, b.finishV1()
}

// decodeV1Recreate validates a POST /v1/recreate body. The output format follows the
// source image's aspect (the service picks it once the image is loaded).
func decodeV1Recreate(b *body) (core.ThumbnailParams, error) {
	p := core.ThumbnailParams{Weight: core.WeightMedium}
	p.Reference = b.imageRef("image_url", "", true, true, false)
	p.Model = b.v1Model("", "mdl-2", "mdl-3")
	if w, ok := b.str("image_weight"); ok && b.oneOf("image_weight", w, weights...) {
		p.Weight = core.Weight(w)
	}
	p.Prompt = b.v1Prompt(false)
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	return p, b.finishV1()
}

func (s *Server) thumbnailV1(r *http.Request, p core.ThumbnailParams) (any, error) {
	url, err := s.svc.Thumbnail(r.Context(), principal(r), p)
	return v1Output{Output: url}, err
}

// decodeV1Edit validates a POST /v1/edit body.
func decodeV1Edit(b *body) (core.EditParams, error) {
	var p core.EditParams
	p.Instruction = b.v1Prompt(true)
	p.Image = b.imageRef("image_url", "", true, true, false)
	p.Mask = b.imageRef("mask_url", "", false, true, false)
	return p, b.finishV1()
}

func (s *Server) editV1(r *http.Request, p core.EditParams) (any, error) {
	url, err := s.svc.Edit(r.Context(), principal(r), p)
	if e := core.AsError(err); e != nil && e.Code == core.CodeGenerationRejected {
		return nil, &v1Error{Status: 400, Code: "BAD_REQUEST", Message: e.Message, Details: "prompt: instruction not understood"}
	}
	return v1Output{Output: url}, err
}

// decodeV1Title validates a POST /v1/title body.
func decodeV1Title(b *body) (core.TitleParams, error) {
	p := core.TitleParams{Count: 1}
	p.Prompt = b.v1Prompt(true)
	if m, ok := b.required("model"); ok && m != "mdl-3" {
		b.problem("model", "only mdl-3 is available for titles")
	}
	return p, b.finishV1()
}

func (s *Server) titleV1(r *http.Request, p core.TitleParams) (any, error) {
	res, err := s.svc.Titles(r.Context(), principal(r), p)
	if err != nil {
		return nil, err
	}
	return v1Output{Output: res.Titles[0]}, nil
}

// decodeV1FaceSwap validates a POST /v1/faceswap body; a missing image is named by its
// own version 1 code.
func decodeV1FaceSwap(b *body) (core.FaceSwapParams, error) {
	var p core.FaceSwapParams
	p.Target = b.imageRef("image_url", "", false, true, false)
	p.Face = b.imageRef("face_url", "", false, true, false)
	if err := b.finishV1(); err != nil {
		return p, v1FaceError(err)
	}
	switch {
	case p.Target.Empty():
		return p, &v1Error{Status: 400, Code: "INVALID_ORIGINAL_IMAGE", Message: "The target image is missing.", Details: "image_url: is required"}
	case p.Face.Empty():
		return p, &v1Error{Status: 400, Code: "INVALID_FACE_IMAGE", Message: "The face image is missing.", Details: "face_url: is required"}
	}
	return p, nil
}

func (s *Server) faceSwapV1(r *http.Request, p core.FaceSwapParams) (any, error) {
	url, err := s.svc.FaceSwap(r.Context(), principal(r), p)
	return v1Output{Output: url}, v1FaceError(err)
}

// v1FaceError names which face swap input is unusable, as version 1 does.
func v1FaceError(err error) error {
	e := core.AsError(err)
	if e == nil || (e.Code != core.CodeInvalidImage && e.Code != core.CodeValidation && e.Code != core.CodeImageTooLarge) || len(e.Details) == 0 {
		return err
	}
	switch e.Details[0].Field {
	case "image_url":
		return &v1Error{Status: 400, Code: "INVALID_ORIGINAL_IMAGE", Message: e.Message, Details: joinDetails(e.Details)}
	case "face_url":
		return &v1Error{Status: 400, Code: "INVALID_FACE_IMAGE", Message: e.Message, Details: joinDetails(e.Details)}
	}
	return err
}
