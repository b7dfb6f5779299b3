package engine

import (
	"image"
	"testing"
)

func BenchmarkZZGradient(b *testing.B) {
	dst := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	start := cpuTime()
	for b.Loop() {
		gradient(dst, rgb(10, 20, 30), rgb(200, 100, 50), rgb(255, 255, 0), image.Pt(900, 360), 400, 1)
	}
	reportCPU(b, start)
}
