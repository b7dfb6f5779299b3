package api

import (
	"errors"
	"net/http"
	"strings"

	"thumbforge/internal/core"
)

// customV1 is the version 1 persona or style record.
type customV1 struct {
	ID              string  `json:"id"`
	Created         int64   `json:"created"`
	Name            string  `json:"name"`
	Status          string  `json:"status"`
	Progress        int     `json:"progress"`
	TempPortraitURL *string `json:"temp_portrait_url"`
}

type createdV1 struct {
	Status string `json:"status"`
	ID     string `json:"id"`
}

// v1Stages names the training stages as version 1 shows them.
var v1Stages = map[core.Stage]string{
	core.StageQueued: "Queued", core.StageAnalyzing: "Analyzing", core.StageTraining: "Training", core.StageReady: "Ready",
}

func (s *Server) v1CreatePersona(w http.ResponseWriter, r *http.Request) error {
	return s.v1CreateCustom(w, r, core.ModePersona)
}

func (s *Server) v1CreateStyle(w http.ResponseWriter, r *http.Request) error {
	return s.v1CreateCustom(w, r, core.ModeStyle)
}

// v1CreateCustom downloads and checks the training zip before answering, then trains in
// the background.
func (s *Server) v1CreateCustom(w http.ResponseWriter, r *http.Request, mode core.Mode) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	p := core.CustomParams{Mode: mode}
	if name, ok := b.required("name"); ok {
		if msg := core.CheckCustomName(name, false); msg != "" {
			b.problem("name", msg)
		}
		p.Name = name
	}
	if u, ok := b.required("training_data"); ok {
		if msg := checkImageURL(u, false); msg != "" {
			b.problem("training_data", msg)
		}
		p.ZipURL = u
	}
	b.lenient()
	if err := b.finish(); err != nil {
		return err
	}
	m, err := s.svc.CreateCustom(r.Context(), principal(r), p)
	var te *core.TrainingDataError
	switch {
	case errors.As(err, &te):
		return &v1Error{Status: http.StatusBadRequest, Code: "INVALID_TRAINING_DATA",
			Message: "The training data cannot be used: " + te.Reason + ".", Details: "training_data: " + te.Reason}
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, createdV1{Status: "queued", ID: m.ID.String()})
	return nil
}

func (s *Server) v1GetPersona(w http.ResponseWriter, r *http.Request) error {
	return s.v1GetCustom(w, r, core.ModePersona)
}

func (s *Server) v1GetStyle(w http.ResponseWriter, r *http.Request) error {
	return s.v1GetCustom(w, r, core.ModeStyle)
}

// v1GetCustom reads a record of the route's mode; a failed record, like an unknown or
// foreign one, is NOT_FOUND ("does not exist or is unavailable").
func (s *Server) v1GetCustom(w http.ResponseWriter, r *http.Request, mode core.Mode) error {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		return &v1Error{Status: http.StatusBadRequest, Code: "BAD_REQUEST", Message: "The id query parameter is required.",
			Details: "id: is required"}
	}
	m, err := s.svc.GetCustom(r.Context(), principal(r), id)
	if err != nil {
		return err
	}
	if m.Mode != mode || m.Status == core.StatusFailed {
		return core.E(core.CodeNotFound, "No %s with this id exists.", mode)
	}
	out := customV1{ID: m.ID.String(), Created: m.CreatedAt.Unix(), Name: m.Name, Status: v1Stages[m.Stage], Progress: m.Progress}
	if m.Status == core.StatusCompleted {
		out.Status, out.Progress = "Ready", 100
		// The link lives 12 hours from the end of training; afterwards there is none.
		if m.CompletedAt != nil && m.PortraitKey != "" {
			expires := m.CompletedAt.Add(core.PortraitTTL)
			if s.svc.Now().Before(expires) {
				u, err := s.signed(r.Context(), m.PortraitKey, expires)
				if err != nil {
					return err
				}
				out.TempPortraitURL = &u
			}
		}
	}
	if out.Status == "" {
		out.Status = "Queued"
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
