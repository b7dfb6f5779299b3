package titles

import (
	"fmt"
	"image"
	"math"
	"sort"
	"strings"

	"thumbforge/internal/core"
)

// imageGrid is how many samples per side the image measurements use: enough for colour
// and mood, and cheap for any image size.
const imageGrid = 128

// imageFacts is what the builtin generator can measure in an image.
type imageFacts struct {
	Faces       int // -1 when no face detector is configured
	Colours     []string
	Brightness  float64 // mean luma, 0..1
	Contrast    float64 // luma standard deviation, 0..1
	Saturation  float64 // mean saturation, 0..1
	EdgeDensity float64 // share of samples on a strong luminance edge
	Mood        string  // a title-cased adjective
}

// text reports whether the image is busy enough with sharp edges to likely carry text.
func (f imageFacts) text() bool { return f.EdgeDensity > 0.16 }

// measureImage samples img on a grid and names its colours, mood and edge density.
func measureImage(img image.Image, faces core.FaceDetector) imageFacts {
	f := imageFacts{Faces: -1}
	if faces != nil {
		f.Faces = len(faces.Detect(img))
	}
	b := img.Bounds()
	w, h := min(imageGrid, b.Dx()), min(imageGrid, b.Dy())
	if w <= 0 || h <= 0 {
		f.Mood = "Quiet"
		return f
	}
	counts := map[string]int{}
	edges := 0
	var sum, sum2, sat float64
	for y := 0; y < h; y++ {
		py := b.Min.Y + (2*y+1)*b.Dy()/(2*h)
		for x := 0; x < w; x++ {
			px := b.Min.X + (2*x+1)*b.Dx()/(2*w)
			r, g, bl := rgb(img, px, py)
			l := luma(r, g, bl)
			// Sharp edges between neighbouring pixels, as letters have, whatever the grid.
			if px+1 < b.Max.X && py+1 < b.Max.Y &&
				math.Abs(l-luma(rgb(img, px+1, py)))+math.Abs(l-luma(rgb(img, px, py+1))) > 0.25 {
				edges++
			}
			sum += l
			sum2 += l * l
			hue, s, v := hsv(r, g, bl)
			sat += s
			counts[colourName(hue, s, v)]++
		}
	}
	n := float64(w * h)
	f.Brightness = sum / n
	f.Contrast = math.Sqrt(math.Max(0, sum2/n-f.Brightness*f.Brightness))
	f.Saturation = sat / n
	f.EdgeDensity = float64(edges) / n
	f.Colours = dominant(counts, n)
	f.Mood = mood(f)
	return f
}

func rgb(img image.Image, x, y int) (r, g, b float64) {
	r16, g16, b16, _ := img.At(x, y).RGBA()
	return float64(r16) / 65535, float64(g16) / 65535, float64(b16) / 65535
}

// luma is Rec. 601 luma of gamma-encoded values: close to perceived lightness.
func luma(r, g, b float64) float64 { return 0.299*r + 0.587*g + 0.114*b }

// dominant returns up to two colour names covering at least 12% of the samples each.
func dominant(counts map[string]int, n float64) []string {
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var out []string
	for _, k := range names {
		if len(out) == 2 || float64(counts[k]) < 0.12*n {
			break
		}
		out = append(out, k)
	}
	if len(out) == 0 && len(names) > 0 {
		out = append(out, names[0])
	}
	return out
}

func mood(f imageFacts) string {
	switch {
	case f.Contrast > 0.28 && f.Brightness < 0.6:
		return "Dramatic"
	case f.Brightness < 0.28:
		return "Dark"
	case f.Saturation > 0.45:
		return "Vibrant"
	case f.Brightness > 0.7:
		return "Bright"
	case f.Contrast < 0.1:
		return "Calm"
	default:
		return "Bold"
	}
}

func hsv(r, g, b float64) (h, s, v float64) {
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	v = mx
	if mx == 0 {
		return 0, 0, 0
	}
	d := mx - mn
	s = d / mx
	if d == 0 {
		return 0, s, v
	}
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, s, v
}

// colourName names a colour the way a viewer would.
func colourName(h, s, v float64) string {
	switch {
	case v < 0.18:
		return "black"
	case s < 0.18 && v > 0.85:
		return "white"
	case s < 0.18:
		return "grey"
	case h < 15 || h >= 340:
		return "red"
	case h < 40:
		if v < 0.55 {
			return "brown"
		}
		return "orange"
	case h < 68:
		return "yellow"
	case h < 160:
		return "green"
	case h < 195:
		return "teal"
	case h < 255:
		return "blue"
	case h < 290:
		return "purple"
	default:
		return "pink"
	}
}

// describe says in words what was measured, for the reasoning.
func (f imageFacts) describe() string {
	var parts []string
	switch {
	case f.Faces == 1:
		parts = append(parts, "one face")
	case f.Faces > 1:
		parts = append(parts, fmt.Sprintf("%d faces", f.Faces))
	case f.Faces == 0:
		parts = append(parts, "no faces")
	}
	if len(f.Colours) > 0 {
		parts = append(parts, "dominant colours "+strings.Join(f.Colours, " and "))
	}
	parts = append(parts, fmt.Sprintf("a %s mood (brightness %d%%, contrast %d%%)",
		strings.ToLower(f.Mood), int(math.Round(f.Brightness*100)), int(math.Round(f.Contrast*100))))
	if f.text() {
		parts = append(parts, "busy edges that suggest text or fine detail")
	} else {
		parts = append(parts, "clean areas that look text-free")
	}
	return strings.Join(parts, ", ")
}
