// Command imagebench times thumbforge's image-to-thumbnail path on one JPEG, the way the
// service runs it: shrink-on-load decode (jpegscale), the builtin engine's mdl_2 16:9
// restyle without a prompt, and a stdlib JPEG encode at quality 88. bench/vips.sh runs it
// beside vipsthumbnail.
//
//	imagebench gen -o in.jpg            writes a 4000x3000 photo-like JPEG
//	imagebench run -in in.jpg -n 20     prints per-image wall and CPU time and memory
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"runtime"
	"syscall"
	"time"

	"thumbforge/internal/core"
	"thumbforge/internal/engines/builtin"
	"thumbforge/internal/jpegenc"
	"thumbforge/internal/jpegscale"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: imagebench gen|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "imagebench:", err)
		os.Exit(1)
	}
}

// gen writes a deterministic photo-like picture: sky gradient, hills, a textured subject
// and fine grain, so the JPEG has the entropy of a real photo, not of a flat test card.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("o", "in.jpg", "output file")
	w := fs.Int("w", 4000, "width")
	h := fs.Int("h", 3000, "height")
	fs.Parse(args)
	img := image.NewYCbCr(image.Rect(0, 0, *w, *h), image.YCbCrSubsampleRatio420)
	seed := uint32(1)
	for y := range *h {
		for x := range *w {
			fx, fy := float64(x)/float64(*w), float64(y)/float64(*h)
			r, g, b := 70+120*fy, 120+60*fy, 230-100*fy
			if fy > 0.6+0.06*math.Sin(fx*7)+0.03*math.Sin(fx*31) {
				r, g, b = 60+40*math.Sin(fx*90+fy*40), 110+50*math.Sin(fx*200), 45
			}
			if d := math.Hypot((fx-0.62)*4/3, fy-0.45); d < 0.18 {
				t := math.Sin(fx*300) * math.Cos(fy*260)
				r, g, b = 210+40*t, 130+80*t, 70+40*t
			}
			seed = seed*1664525 + 1013904223
			n := float64(seed>>24)/255*16 - 8
			yy, cb, cr := rgbToYCbCr(r+n, g+n, b+n)
			img.Y[img.YOffset(x, y)] = yy
			if x%2 == 0 && y%2 == 0 {
				img.Cb[img.COffset(x, y)], img.Cr[img.COffset(x, y)] = cb, cr
			}
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 90}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func rgbToYCbCr(r, g, b float64) (uint8, uint8, uint8) {
	c := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, v+0.5))) }
	y := 0.299*r + 0.587*g + 0.114*b
	return c(y), c(128 - 0.168736*r - 0.331264*g + 0.5*b), c(128 + 0.5*r - 0.418688*g - 0.081312*b)
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	in := fs.String("in", "in.jpg", "input JPEG")
	n := fs.Int("n", 20, "repetitions")
	out := fs.String("o", "", "write the last output here")
	fs.Parse(args)
	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	eng, err := builtin.New(builtin.Config{})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	once := func() (time.Duration, error) { // one image; returns the decode time
		t0 := time.Now()
		src, err := jpegscale.Decode(data, 1280)
		if err != nil {
			return 0, err
		}
		dec := time.Since(t0)
		img, err := eng.Thumbnail(context.Background(), core.ThumbnailJob{Model: "mdl_2", Format: core.Format16x9, Reference: src, Weight: core.WeightMedium, Seed: 1})
		if err != nil {
			return 0, err
		}
		buf.Reset()
		return dec, jpegenc.Encode(&buf, img, core.OutputQuality)
	}
	if _, err := once(); err != nil { // warm up: fonts, pools
		return err
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0, peak := ms.TotalAlloc, ms.HeapInuse
	cpu0, wall0 := cpuTime(), time.Now()
	var decode time.Duration
	for range *n {
		d, err := once()
		if err != nil {
			return err
		}
		decode += d
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	wall, cpu := time.Since(wall0), cpuTime()-cpu0
	runtime.ReadMemStats(&ms)
	per := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(*n) }
	fmt.Printf("thumbforge: %d images, wall %.1f ms/image (decode %.1f), cpu %.1f ms/image, alloc %.1f MiB/image, heap in use peak %.1f MiB, output %d bytes\n",
		*n, per(wall), per(decode), per(cpu), float64(ms.TotalAlloc-alloc0)/float64(*n)/(1<<20), float64(peak)/(1<<20), buf.Len())
	fmt.Printf("THUMBFORGE_MS=%.2f\n", per(wall))
	if *out != "" {
		return os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	return nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
