//go:build unix

package testutil

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the process's user+system CPU time. Benchmarks report it per op because wall
// time means little on a machine shared with other work.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU adds a cpu-ms/op metric measured since start (a CPUTime reading).
func ReportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(CPUTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
