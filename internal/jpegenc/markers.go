package jpegenc

// JFIF APP0 (version 1.01, no density units, 1:1 aspect, no thumbnail).
var app0 = []byte{
	0xff, 0xe0, 0x00, 0x10,
	'J', 'F', 'I', 'F', 0x00,
	0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
}

// writeHeaders emits SOI, APP0, DQT, SOF0, DHT and SOS (T.81 Annex B).
func (e *encoder) writeHeaders(w, h, ncomp int) {
	o := append(e.out, 0xff, 0xd8) // SOI
	o = append(o, app0...)

	ntab := min(ncomp, 2)
	o = appendSegment(o, 0xdb, 65*ntab)
	for t := range ntab {
		o = append(o, byte(t)) // 8-bit precision, table t
		o = append(o, e.quant[t][:]...)
	}

	o = appendSegment(o, 0xc0, 6+3*ncomp)
	o = append(o, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), byte(ncomp))
	if ncomp == 1 {
		o = append(o, 1, 0x11, 0)
	} else {
		o = append(o, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1)
	}

	// Luma tables always; chroma tables only when chroma is coded.
	all := [4]int{dcLuma, acLuma, dcChroma, acChroma}
	order := all[:2*ntab]
	n := 0
	for _, i := range order {
		n += 17 + len(stdHuff[i].values)
	}
	o = appendSegment(o, 0xc4, n)
	for _, i := range order {
		class, id := i/2, i%2 // dcLuma=0, dcChroma=1, acLuma=2, acChroma=3
		o = append(o, byte(class<<4|id))
		o = append(o, stdHuff[i].counts[:]...)
		o = append(o, stdHuff[i].values...)
	}

	o = appendSegment(o, 0xda, 4+2*ncomp)
	o = append(o, byte(ncomp))
	if ncomp == 1 {
		o = append(o, 1, 0x00)
	} else {
		o = append(o, 1, 0x00, 2, 0x11, 3, 0x11)
	}
	o = append(o, 0, 63, 0) // Ss, Se, Ah/Al: baseline spectral selection
	e.out = o
}

// appendSegment writes a marker and the length field of an n-byte payload.
func appendSegment(o []byte, marker byte, n int) []byte {
	n += 2
	return append(o, 0xff, marker, byte(n>>8), byte(n))
}
