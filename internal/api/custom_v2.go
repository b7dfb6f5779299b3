package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"thumbforge/internal/core"
)

// customV2 is the version 2 persona or style record.
type customV2 struct {
	ID                  string    `json:"id"`
	Name                string    `json:"name"`
	Mode                core.Mode `json:"mode"`
	Status              string    `json:"status"`
	Progress            int       `json:"progress"`
	PortraitURL         *string   `json:"portrait_url"`
	Reference           []string  `json:"reference"`
	SpecialInstructions string    `json:"special_instructions"`
	// RequestID is the reading request's id; items of a list leave it out.
	RequestID string `json:"request_id,omitempty"`
}

type createdV2 struct {
	ID        string `json:"id"`
	RequestID string `json:"request_id"`
}

type messageV2 struct {
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

// decodeCustomV2 validates a POST /v2/custom/style or /v2/custom/persona body.
func decodeCustomV2(b *body, mode core.Mode) (core.CustomParams, error) {
	p := core.CustomParams{Mode: mode}
	if name, ok := b.required("name"); ok {
		if msg := core.CheckCustomName(name, true); msg != "" {
			b.problem("name", msg)
		}
		p.Name = name
	}
	if text, ok := b.str("special_instructions"); ok {
		b.checkInstructions(text)
		p.SpecialInstructions = text
	}
	urls, hasURLs := b.strs("image_urls")
	datas, hasData := b.strs("image_base64s")
	switch {
	case hasURLs && hasData:
		b.problem("image_urls", "send exactly one of image_urls and image_base64s")
	case !hasURLs && !hasData:
		if !b.has("image_urls") && !b.has("image_base64s") {
			b.problem("image_urls", "one of image_urls and image_base64s is required")
		}
	case hasURLs:
		p.Images = imageList(b, "image_urls", urls, func(s string) string { return checkImageURL(s, true) }, false)
	default:
		p.Images = imageList(b, "image_base64s", datas, checkDataURL, true)
	}
	return p, b.finish()
}

// imageList checks that exactly three images were sent, each well formed.
func imageList(b *body, field string, items []string, check func(string) string, data bool) []core.ImageRef {
	if len(items) != core.V2TrainingImages {
		b.problem(field, fmt.Sprintf("must hold exactly %d images, got %d", core.V2TrainingImages, len(items)))
	}
	refs := make([]core.ImageRef, 0, len(items))
	for i, s := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if msg := check(s); msg != "" {
			b.problem(f, msg)
		}
		ref := core.ImageRef{Field: f, URL: s}
		if data {
			ref = core.ImageRef{Field: f, Data: s}
		}
		refs = append(refs, ref)
	}
	return refs
}

// v2CreateCustom serves POST /v2/custom/style and /v2/custom/persona.
func (s *Server) v2CreateCustom(mode core.Mode) handlerFunc {
	decode := func(b *body) (core.CustomParams, error) { return decodeCustomV2(b, mode) }
	return serveJSON(decode, func(r *http.Request, p core.CustomParams) (any, error) {
		m, err := s.svc.CreateCustom(r.Context(), principal(r), p)
		if err != nil {
			return nil, err
		}
		return createdV2{ID: m.ID.String(), RequestID: core.RequestID(r.Context())}, nil
	})
}

func (s *Server) v2GetCustom(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.GetCustom(r.Context(), principal(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.writeCustomV2(w, r, m)
}

func (s *Server) v2DeleteCustom(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.DeleteCustom(r.Context(), principal(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, messageV2{Message: fmt.Sprintf("The %s %q was deleted.", m.Mode, m.Name),
		RequestID: core.RequestID(r.Context())})
	return nil
}

func (s *Server) v2PatchCustom(w http.ResponseWriter, r *http.Request) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	text, err := decodeInstructions(b)
	if err != nil {
		return err
	}
	m, err := s.svc.SetSpecialInstructions(r.Context(), principal(r), r.PathValue("id"), text)
	if err != nil {
		return err
	}
	return s.writeCustomV2(w, r, m)
}

// decodeInstructions validates a PATCH /v2/custom/{id} body: special_instructions, the
// prompt rules with its own length (empty clears them).
func decodeInstructions(b *body) (string, error) {
	text, ok := b.required("special_instructions")
	if ok {
		b.checkInstructions(text)
	}
	return text, b.finish()
}

// checkInstructions applies the prompt rules to special instructions (0..300 characters).
func (b *body) checkInstructions(text string) {
	if msg := textProblem(text, 0, core.MaxInstructions, false); msg != "" {
		b.problem("special_instructions", msg)
	}
}

// writeCustomV2 renders a record.
func (s *Server) writeCustomV2(w http.ResponseWriter, r *http.Request, m *core.CustomModel) error {
	out, err := s.customBody(r.Context(), m)
	if err != nil {
		return err
	}
	out.RequestID = core.RequestID(r.Context())
	writeJSON(w, http.StatusOK, out)
	return nil
}

// customBody is a record in its v2 shape; portrait and reference links are signed for the
// output lifetime and exist only once training completed.
func (s *Server) customBody(ctx context.Context, m *core.CustomModel) (customV2, error) {
	out := customV2{ID: m.ID.String(), Name: m.Name, Mode: m.Mode, Status: string(m.Status), Progress: m.Progress,
		SpecialInstructions: m.SpecialInstructions}
	if m.Status != core.StatusCompleted {
		return out, nil
	}
	expires := s.svc.Now().Add(core.OutputTTL)
	u, err := s.signed(ctx, m.PortraitKey, expires)
	if err != nil {
		return out, err
	}
	out.PortraitURL = &u
	out.Reference = []string{}
	for _, k := range m.ReferenceKeys {
		u, err := s.signed(ctx, k, expires)
		if err != nil {
			return out, err
		}
		out.Reference = append(out.Reference, u)
	}
	return out, nil
}

// signed returns a link to a record's blob that works until expires.
func (s *Server) signed(ctx context.Context, key string, expires time.Time) (string, error) {
	u, err := s.svc.Blobs().URL(ctx, key, expires)
	if err != nil {
		return "", core.Wrap(core.CodeInternal, err, "Internal error.")
	}
	return u, nil
}

// EventData renders an event's data for its webhook: what GET /v2/custom/{id} answers
// (without a request_id: no request reads it).
func (s *Server) EventData(ctx context.Context, e core.Event) (any, error) {
	switch {
	case e.Custom != nil:
		return s.customBody(ctx, e.Custom)
	case e.Request != nil:
		return s.requestView(ctx, e.Request)
	}
	return nil, fmt.Errorf("api: no data for event %s", e.Type)
}
