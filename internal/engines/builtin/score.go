package builtin

import (
	"context"
	"image"
	"math"

	"thumbforge/internal/core"
)

// scoreResult is a score before rounding, so candidates compare finely.
type scoreResult struct {
	total    float64
	criteria []core.Criterion
	advice   []string
}

// criterion weights and the advice given when a criterion scores under 50.
var criteria = []struct {
	name   string
	weight float64
	advice string
}{
	{"contrast", 0.2, "Increase contrast: separate the subject and text from the background with light against dark."},
	{"colorfulness", 0.2, "Use bolder, more saturated colours; muted thumbnails disappear in a feed."},
	{"text_legibility", 0.15, "Reduce clutter: fewer elements and a larger, simpler headline read better at small sizes."},
	{"composition", 0.15, "Place the main subject on a rule-of-thirds line instead of an edge or dead centre."},
	{"sharpness", 0.15, "The image looks soft: use a sharper source or add crisp edges and outlines."},
	{"face", 0.15, "Show a large, clear face: faces filling a quarter to half of the height draw clicks."},
}

// Score rates a thumbnail 0..100 with a breakdown per criterion and advice for the weak ones.
func (e *Engine) Score(ctx context.Context, img image.Image) (core.Score, error) {
	s, err := e.score(ctx, img)
	if err != nil {
		return core.Score{}, err
	}
	out := core.Score{Score: int(math.Round(s.total)), Criteria: s.criteria, Advice: s.advice}
	if out.Advice == nil {
		out.Advice = []string{}
	}
	return out, nil
}

func (e *Engine) score(ctx context.Context, img image.Image) (scoreResult, error) {
	b := img.Bounds()
	if b.Empty() {
		return scoreResult{}, core.E(core.CodeInvalidImage, "The image is empty.")
	}
	w, h := fitSize(b.Dx(), b.Dy(), 256)
	small := resize(img, w, h)
	if err := ctx.Err(); err != nil {
		return scoreResult{}, err
	}
	n := float64(w * h)
	luma := make([]float64, w*h)
	var sl, sl2, srg, srg2, syb, syb2 float64
	for i := range luma {
		p := small.Pix[4*i:]
		r, g, bb := float64(p[0]), float64(p[1]), float64(p[2])
		l := 0.299*r + 0.587*g + 0.114*bb
		luma[i] = l
		sl += l
		sl2 += l * l
		rg, yb := r-g, 0.5*(r+g)-bb
		srg += rg
		srg2 += rg * rg
		syb += yb
		syb2 += yb * yb
	}
	std := func(s, s2 float64) float64 { return math.Sqrt(math.Max(0, s2/n-(s/n)*(s/n))) }
	vals := map[string]float64{}
	vals["contrast"] = clamp(std(sl, sl2)/55*100, 0, 100)
	colourful := math.Hypot(std(srg, srg2), std(syb, syb2)) + 0.3*math.Hypot(srg/n, syb/n)
	vals["colorfulness"] = clamp(colourful/70*100, 0, 100)

	// Edges: Laplacian energy for sharpness, gradient density for clutter, gradient
	// centroid for composition.
	var lap, edges, ex, ey, et float64
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			lap += math.Abs(4*luma[i] - luma[i-1] - luma[i+1] - luma[i-w] - luma[i+w])
			g := math.Abs(luma[i+1]-luma[i-1]) + math.Abs(luma[i+w]-luma[i-w])
			if g > 40 {
				edges++
			}
			ex += g * float64(x)
			ey += g * float64(y)
			et += g
		}
	}
	if err := ctx.Err(); err != nil {
		return scoreResult{}, err
	}
	vals["sharpness"] = clamp(lap/n/10*100, 0, 100)
	density := edges / n
	switch {
	case density < 0.01:
		vals["text_legibility"] = density / 0.01 * 30
	case density <= 0.25:
		vals["text_legibility"] = 100
	default:
		vals["text_legibility"] = clamp(100-(density-0.25)*300, 0, 100)
	}
	if et > 0 {
		cx, cy := ex/et/float64(w), ey/et/float64(h)
		d := math.Min(math.Min(math.Abs(cx-1.0/3), math.Abs(cx-2.0/3)), math.Min(math.Abs(cy-1.0/3), math.Abs(cy-2.0/3)))
		// Centred subjects are acceptable; on a thirds line is best; at an edge is worst.
		vals["composition"] = clamp(100-d/0.33*120, 0, 100) * math.Min(1, density/0.01)
	}
	useFace := e.cfg.Faces != nil
	if useFace {
		dw, dh := fitSize(b.Dx(), b.Dy(), 480)
		faces := e.cfg.Faces.Detect(resize(img, dw, dh))
		if len(faces) > 0 {
			r := float64(faces[0].Box.Dy()) / float64(dh)
			switch {
			case r < 0.25:
				vals["face"] = 40 + r/0.25*60
			case r <= 0.55:
				vals["face"] = 100
			default:
				vals["face"] = clamp(100-(r-0.55)*150, 40, 100)
			}
		} else {
			vals["face"] = 20
		}
	}
	var res scoreResult
	var total, weights float64
	for _, c := range criteria {
		if c.name == "face" && !useFace {
			continue
		}
		v := vals[c.name]
		cr := core.Criterion{Name: c.name, Score: int(math.Round(v))}
		if v < 50 {
			cr.Advice = c.advice
			res.advice = append(res.advice, c.advice)
		}
		res.criteria = append(res.criteria, cr)
		total += v * c.weight
		weights += c.weight
	}
	res.total = clamp(total/weights, 0, 100)
	return res, nil
}
