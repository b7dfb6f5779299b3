package builtin

import "hash/fnv"

// rng is a small deterministic generator (splitmix64): outputs depend only on the seed,
// never on time or map order, so equal jobs give equal pixels.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number in [0,1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// rangef returns a number in [lo,hi).
func (r *rng) rangef(lo, hi float64) float64 { return lo + (hi-lo)*r.float() }

// intn returns a number in [0,n).
func (r *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.next() % uint64(n))
}

// hashStrings mixes strings into a seed; a separator keeps ("ab","c") apart from ("a","bc").
func hashStrings(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	h.Write(b[:])
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
