package api

import (
	"net/http"
	"unicode/utf8"

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

// v1Prompt reads a prompt of 1 to 3000 characters.
func (b *body) v1Prompt(required bool) string {
	var s string
	var ok bool
	if required {
		s, ok = b.required("prompt")
	} else {
		s, ok = b.str("prompt")
	}
	if ok && (utf8.RuneCountInString(s) < 1 || utf8.RuneCountInString(s) > MaxPrompt) {
		b.problem("prompt", "must be 1 to 3000 characters long")
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

func (s *Server) v1Thumbnail(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p := core.ThumbnailParams{Weight: core.WeightMedium, Format: core.Format16x9}
	p.Prompt = b.v1Prompt(true)
	if f, ok := b.str("format"); ok && b.oneOf("format", f, formatStr...) {
		p.Format = core.Format(f)
	}
	p.Model = b.v1Model("mdl-3", "mdl-1", "mdl-2", "mdl-3")
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	b.lenient()
	if err := b.finish(); err != nil {
		return err
	}
	return s.v1ThumbnailRun(w, r, p)
}

func (s *Server) v1ThumbnailRun(w http.ResponseWriter, r *http.Request, p core.ThumbnailParams) error {
	url, err := s.svc.Thumbnail(r.Context(), principal(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v1Output{Output: url})
	return nil
}

func (s *Server) v1Recreate(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p := core.ThumbnailParams{Weight: core.WeightMedium}
	p.Reference = b.imageRef("image_url", "", true, true, false)
	p.Model = b.v1Model("", "mdl-2", "mdl-3")
	if w, ok := b.str("image_weight"); ok && b.oneOf("image_weight", w, weights...) {
		p.Weight = core.Weight(w)
	}
	p.Prompt = b.v1Prompt(false)
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	b.lenient()
	if err := b.finish(); err != nil {
		return err
	}
	return s.v1ThumbnailRun(w, r, p)
}

func (s *Server) v1Edit(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	var p core.EditParams
	p.Instruction = b.v1Prompt(true)
	p.Image = b.imageRef("image_url", "", true, true, false)
	p.Mask = b.imageRef("mask_url", "", false, true, false)
	b.lenient()
	if err := b.finish(); err != nil {
		return err
	}
	url, err := s.svc.Edit(r.Context(), principal(r), p)
	if err != nil {
		if e := core.AsError(err); e != nil && e.Code == core.CodeGenerationRejected {
			return &v1Error{Status: 400, Code: "BAD_REQUEST", Message: e.Message, Details: "prompt: instruction not understood"}
		}
		return err
	}
	writeJSON(w, http.StatusOK, v1Output{Output: url})
	return nil
}

func (s *Server) v1Title(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p := core.TitleParams{Count: 1}
	p.Prompt = b.v1Prompt(true)
	if m, ok := b.required("model"); ok && m != "mdl-3" {
		b.problem("model", "only mdl-3 is available for titles")
	}
	b.lenient()
	if err := b.finish(); err != nil {
		return err
	}
	res, err := s.svc.Titles(r.Context(), principal(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v1Output{Output: res.Titles[0]})
	return nil
}

func (s *Server) v1FaceSwap(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	var p core.FaceSwapParams
	p.Target = b.imageRef("image_url", "", false, true, false)
	p.Face = b.imageRef("face_url", "", false, true, false)
	b.lenient()
	if err := b.finish(); err != nil {
		return v1FaceError(err)
	}
	switch {
	case p.Target.Empty():
		return &v1Error{Status: 400, Code: "INVALID_ORIGINAL_IMAGE", Message: "The target image is missing.", Details: "image_url: is required"}
	case p.Face.Empty():
		return &v1Error{Status: 400, Code: "INVALID_FACE_IMAGE", Message: "The face image is missing.", Details: "face_url: is required"}
	}
	url, err := s.svc.FaceSwap(r.Context(), principal(r), p)
	if err != nil {
		return v1FaceError(err)
	}
	writeJSON(w, http.StatusOK, v1Output{Output: url})
	return nil
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
