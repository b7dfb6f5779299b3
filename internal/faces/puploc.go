package faces

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// pupilLocator runs pigo's puploc cascade (regression trees that move a window towards the
// pupil). pigo's own runner draws its perturbations from the global random source, which
// would make the same request give different bytes; this one uses a fixed-seed source.
type pupilLocator struct {
	stages, trees, depth int
	scale                float32
	codes                []int8
	preds                []float32
}

// perturbations is how many jittered windows vote (median) for an eye position.
const perturbations = 31

// parsePuploc reads the puploc cascade format: a header (stages, scale multiplier, trees
// per stage, tree depth) then per tree 4*(2^depth-1) node codes and 2*2^depth leaf
// predictions (row, column offsets).
func parsePuploc(data []byte) (*pupilLocator, error) {
	if len(data) < 16 {
		return nil, errors.New("puploc cascade: short header")
	}
	le := binary.LittleEndian
	p := &pupilLocator{
		stages: int(le.Uint32(data[0:])),
		scale:  math.Float32frombits(le.Uint32(data[4:])),
		trees:  int(le.Uint32(data[8:])),
		depth:  int(le.Uint32(data[12:])),
	}
	if p.depth < 1 || p.depth > 12 || p.stages < 1 || p.trees < 1 {
		return nil, errors.New("puploc cascade: bad header")
	}
	leaves := 1 << p.depth
	perTree := 4*(leaves-1) + 8*leaves
	if len(data)-16 != p.stages*p.trees*perTree {
		return nil, errors.New("puploc cascade: bad length")
	}
	pos := 16
	for range p.stages * p.trees {
		for _, c := range data[pos : pos+4*(leaves-1)] {
			p.codes = append(p.codes, int8(c))
		}
		pos += 4 * (leaves - 1)
		for range 2 * leaves {
			p.preds = append(p.preds, math.Float32frombits(le.Uint32(data[pos:])))
			pos += 4
		}
	}
	return p, nil
}

// regress moves a window at (r, c) of size s through every stage; flip mirrors the trees
// horizontally, which is how the cascade (trained on left eyes) serves the right eye.
func (p *pupilLocator) regress(g grayImage, r, c, s float32, flip bool) (float32, float32, float32) {
	leaves := 1 << p.depth
	codeRoot, tree := 0, 0
	sign := int32(1)
	if flip {
		sign = -1
	}
	for range p.stages {
		var dr, dc float32
		si := int32(math.Round(float64(s)))
		ri, ci := int32(r), int32(c)
		for range p.trees {
			idx := 0
			for range p.depth {
				n := p.codes[codeRoot+4*idx:]
				r1 := clampI(int((256*ri+int32(n[0])*si)>>8), 0, g.rows-1)
				c1 := clampI(int((256*ci+sign*int32(n[1])*si)>>8), 0, g.cols-1)
				r2 := clampI(int((256*ri+int32(n[2])*si)>>8), 0, g.rows-1)
				c2 := clampI(int((256*ci+sign*int32(n[3])*si)>>8), 0, g.cols-1)
				idx = 2*idx + 1
				if g.pix[r1*g.cols+c1] > g.pix[r2*g.cols+c2] {
					idx++
				}
			}
			leaf := 2 * (tree*leaves + idx - (leaves - 1))
			dr += p.preds[leaf]
			dc += float32(sign) * p.preds[leaf+1]
			codeRoot += 4 * (leaves - 1)
			tree++
		}
		r += dr * s
		c += dc * s
		s *= p.scale
	}
	return r, c, s
}

// locate returns the median pupil estimate over deterministic jittered windows around
// (r, c) of size s.
func (p *pupilLocator) locate(g grayImage, r, c, s float32, flip bool) (float32, float32) {
	rng := rand.New(rand.NewPCG(0x9e3779b97f4a7c15, 0x5851f42d4c957f2d))
	rows := make([]float32, perturbations)
	cols := make([]float32, perturbations)
	for i := range perturbations {
		jr := r + s*0.15*(0.5-rng.Float32())
		jc := c + s*0.15*(0.5-rng.Float32())
		js := s * (0.925 + 0.15*rng.Float32())
		rows[i], cols[i], _ = p.regress(g, jr, jc, js, flip)
	}
	slices.Sort(rows)
	slices.Sort(cols)
	return rows[perturbations/2], cols[perturbations/2]
}

func clampI(v, lo, hi int) int { return max(lo, min(v, hi)) }
