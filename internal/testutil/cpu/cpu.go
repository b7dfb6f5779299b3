//go:build unix

// Package cpu measures the process's CPU time for benchmarks; it imports nothing of the
// project (testutil re-exports it).
package cpu

import (
	"syscall"
	"testing"
	"time"
)

// Time is the process's user+system CPU time. Benchmarks report it per op because wall
// time means little on a machine shared with other work.
func Time() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report adds a cpu-ms/op metric measured since start (a Time reading).
func Report(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(Time()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
