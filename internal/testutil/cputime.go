//go:build unix

package testutil

import (
	"testing"
	"time"

	"thumbforge/internal/testutil/cpu"
)

// CPUTime is cpu.Time: the process's user+system CPU time.
func CPUTime() time.Duration { return cpu.Time() }

// ReportCPU is cpu.Report: a cpu-ms/op metric measured since start (a CPUTime reading).
func ReportCPU(b *testing.B, start time.Duration) { cpu.Report(b, start) }
