package api

import (
	"net/http"

	"thumbforge/internal/core"
)

// outputResponse is the answer of an image request (v1: without request_id).
type outputResponse = core.OutputBody

var (
	v2Models  = core.Models
	formatStr = []string{string(core.Format16x9), string(core.Format9x16), string(core.Format1x1)}
	weights   = []string{string(core.WeightLow), string(core.WeightMedium), string(core.WeightHigh)}
)

func supportsSupport(model string) bool { return model == "mdl_4" || model == "mdl_4_5" }

// modelAndFormat reads the required v2 model and format; it reports whether the model
// is a known one (rules that depend on it are checked only then).
func (b *body) modelAndFormat(p *core.ThumbnailParams) bool {
	model, ok := b.required("model")
	if ok {
		ok = b.oneOf("model", model, v2Models...)
	}
	p.Model = model
	if f, fok := b.required("format"); fok && b.oneOf("format", f, formatStr...) {
		p.Format = core.Format(f)
	}
	return ok
}

// decodeThumbnailImage validates a POST /v2/thumbnail/image body.
func decodeThumbnailImage(b *body) (core.ThumbnailParams, error) {
	var p core.ThumbnailParams
	okModel := b.modelAndFormat(&p)
	p.Reference = b.imageRef("image_url", "image_base64", true, true, true)
	p.Reference.URL = videoThumbnail(p.Reference.URL)
	if s, ok := b.str("prompt"); ok {
		b.checkPrompt("prompt", s)
		p.Prompt = s
	}
	p.Support = b.imageRef("support_image_url", "support_image_base64", false, false, true)
	if !p.Support.Empty() && okModel && !supportsSupport(p.Model) {
		b.problem(p.Support.Field, "support images are only available with mdl_4 and mdl_4_5")
	}
	p.Weight = core.WeightMedium
	if w, ok := b.str("image_weight"); ok && b.oneOf("image_weight", w, weights...) {
		p.Weight = core.Weight(w)
	}
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	if err := b.finish(); err != nil {
		return p, err
	}
	if p.Model == "mdl_2" {
		p.Prompt = "" // SPEC: the prompt is ignored for mdl_2
	}
	return p, nil
}

// decodeThumbnailText validates a POST /v2/thumbnail/text body.
func decodeThumbnailText(b *body) (core.ThumbnailParams, error) {
	var p core.ThumbnailParams
	if s, ok := b.required("prompt"); ok {
		b.checkPrompt("prompt", s)
		p.Prompt = s
	}
	okModel := b.modelAndFormat(&p)
	p.Support = b.imageRef("support_image_url", "support_image_base64", false, false, true)
	p.Weight = core.WeightMedium
	p.PersonaID = b.optionalID("persona")
	p.StyleID = b.optionalID("style")
	if err := b.finish(); err != nil {
		return p, err
	}
	if !p.Support.Empty() && okModel && !supportsSupport(p.Model) {
		return p, &core.Error{Code: core.CodeSupportNotSupported,
			Message: "Support images are only available with mdl_4 and mdl_4_5.",
			Details: []core.Detail{{Field: p.Support.Field, Message: "not supported by " + p.Model}}}
	}
	return p, nil
}

// thumbnailWork is a validated thumbnail request as asynchronous work.
func thumbnailWork(p core.ThumbnailParams) core.Work {
	return core.Work{Kind: core.WorkThumbnail, Thumbnail: &p}
}

// thumbnailV2 renders a validated v2 thumbnail request.
func (s *Server) thumbnailV2(r *http.Request, p core.ThumbnailParams) (any, error) {
	url, err := s.svc.Thumbnail(r.Context(), principal(r), p)
	return outputResponse{Output: url, RequestID: core.RequestID(r.Context())}, err
}

// serveJSON is the shape of every JSON endpoint: read the body, validate it with decode
// (every problem at once), run the operation, answer 200 with its result.
func serveJSON[P any](decode func(*body) (P, error), run func(*http.Request, P) (any, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := readBody(r)
		if err != nil {
			return err
		}
		p, err := decode(b)
		if err != nil {
			return err
		}
		res, err := run(r, p)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, res)
		return nil
	}
}
