package jpegscale

import "fmt"

// parseDQT reads quantisation tables (T.81 B.2.4.1), kept in zigzag order.
func (d *decoder) parseDQT(p []byte) error {
	for len(p) > 0 {
		pq, tq := p[0]>>4, p[0]&15
		if pq > 1 || tq > 3 {
			return fmt.Errorf("%w: bad DQT", ErrFormat)
		}
		n := 64 << pq
		if len(p) < 1+n {
			return fmt.Errorf("%w: short DQT", ErrFormat)
		}
		q := &d.quant[tq]
		for i := range q {
			if pq == 0 {
				q[i] = int32(p[1+i])
			} else {
				q[i] = int32(p[1+2*i])<<8 | int32(p[2+2*i])
			}
		}
		d.qset[tq] = true
		p = p[1+n:]
	}
	return nil
}

// parseDHT reads Huffman tables (T.81 B.2.4.2).
func (d *decoder) parseDHT(p []byte) error {
	for len(p) > 0 {
		if len(p) < 17 {
			return fmt.Errorf("%w: short DHT", ErrFormat)
		}
		tc, th := p[0]>>4, p[0]&15
		if tc > 1 || th > 3 {
			return fmt.Errorf("%w: bad DHT", ErrFormat)
		}
		var counts [16]int
		total := 0
		for i := range counts {
			counts[i] = int(p[1+i])
			total += counts[i]
		}
		if total == 0 || total > 256 || len(p) < 17+total {
			return fmt.Errorf("%w: bad DHT", ErrFormat)
		}
		if err := d.huff[tc][th].build(&counts, p[17:17+total], tc == 1); err != nil {
			return err
		}
		d.hset[tc][th] = true
		p = p[17+total:]
	}
	return nil
}
