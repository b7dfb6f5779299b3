package builtin

import "testing"

// TestMaxIntoMatchesScalar checks the eight-bytes-at-a-time maximum against max on
// random bytes and every pair of edge values, with lengths that leave a tail.
func TestMaxIntoMatchesScalar(t *testing.T) {
	r := newRNG(7)
	edges := []uint8{0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff}
	var a, b []uint8
	for _, x := range edges {
		for _, y := range edges {
			a, b = append(a, x), append(b, y)
		}
	}
	for range 1000 {
		a, b = append(a, uint8(r.next())), append(b, uint8(r.next()))
	}
	for _, n := range []int{len(a), len(a) - 3, 5, 0} {
		got := append([]uint8(nil), a[:n]...)
		maxInto(got, b[:n])
		for i := range n {
			if want := max(a[i], b[i]); got[i] != want {
				t.Fatalf("n=%d: max(%#x, %#x) = %#x, want %#x", n, a[i], b[i], got[i], want)
			}
		}
	}
}
