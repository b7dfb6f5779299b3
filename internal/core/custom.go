package core

import (
	"time"

	"github.com/google/uuid"
)

// Mode says whether a custom model is a persona or a style.
type Mode string

// Custom model modes.
const (
	ModePersona Mode = "persona"
	ModeStyle   Mode = "style"
)

// Status is the version 2 state of a custom model.
type Status string

// Custom model states.
const (
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
)

// Stage is the training stage, shown by version 1 as Queued/Analyzing/Training/Ready.
type Stage string

// Training stages in order.
const (
	StageQueued    Stage = "queued"
	StageAnalyzing Stage = "analyzing"
	StageTraining  Stage = "training"
	StageReady     Stage = "ready"
	StageFailed    Stage = "failed"
)

// CustomModel is a persona or a style owned by one account.
type CustomModel struct {
	ID                  uuid.UUID `json:"id"`
	AccountID           uuid.UUID `json:"account_id"`
	Mode                Mode      `json:"mode"`
	Name                string    `json:"name"`
	Status              Status    `json:"status"`
	Stage               Stage     `json:"stage"`
	Progress            int       `json:"progress"`
	SpecialInstructions string    `json:"special_instructions"`
	// Source says where the training images come from (zip URL or image list), as JSON.
	Source string `json:"-"`
	// PortraitKey and ReferenceKeys are blob keys, set when training completes.
	PortraitKey   string   `json:"-"`
	ReferenceKeys []string `json:"-"`
	// Params is what training learned, as JSON (StyleParams or PersonaParams).
	Params string `json:"-"`
	// FailReason is a public reason when Status is failed.
	FailReason    string     `json:"fail_reason,omitempty"`
	ReservationID *uuid.UUID `json:"-"`
	CreatedAt     time.Time  `json:"created_at"`
	CompletedAt   *time.Time `json:"completed_at,omitempty"`
}
