package testutil

import "thumbforge/internal/testutil/payload"

// The payloads of issue 11 (internal/testutil/payload).

// PNG16 is payload.PNG16.
func PNG16(w, h, seed int) []byte { return payload.PNG16(w, h, seed) }

// ProgressiveJPEG is payload.ProgressiveJPEG.
func ProgressiveJPEG(w, h int) []byte { return payload.ProgressiveJPEG(w, h) }

// ZipOf is payload.ZipOf.
func ZipOf(files map[string][]byte, order []string) []byte { return payload.ZipOf(files, order) }

// Describe is payload.Describe.
func Describe(what string, data []byte) string { return payload.Describe(what, data) }
