#!/bin/sh
# Regenerates the progressive JPEGs that progressive_test.go decodes, with libjpeg-turbo's
# cjpeg (Debian: apt-get install libjpeg-turbo-progs). Not run by the tests or CI: the
# files are committed. Sources are photo-like PPMs (gradients, hard edges, noise) at sizes
# that are not multiples of the MCU.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ppm() { # ppm W H SEED FILE
	python3 - "$@" <<'PY'
import math, random, sys
w, h, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
px = bytearray()
for y in range(h):
    for x in range(w):
        v = 128 + 60*math.sin(x/37 + y/53) + 30*math.cos(x*y/9000) + (40 if (x//97 + y//61) % 3 == 0 else 0)
        r = v + rng.gauss(0, 6)
        g = 128 + 50*math.sin(x/71) + rng.gauss(0, 4)
        b = 128 + 50*math.cos(y/43) + (v - 128)/2 + rng.gauss(0, 4)
        px += bytes(max(0, min(255, int(c))) for c in (r, g, b))
open(out, "wb").write(b"P6 %d %d 255\n" % (w, h) + px)
PY
}
ppm 203 141 1 "$tmp/a.ppm"
ppm 117 83 2 "$tmp/b.ppm"
ppm 64 40 3 "$tmp/c.ppm"
# libjpeg's default script: DC first and refinement, AC bands with successive approximation.
cjpeg -quality 85 -progressive "$tmp/a.ppm" >p420-q85.jpg
cjpeg -quality 95 -progressive -sample 1x1 -restart 2B "$tmp/b.ppm" >p444-q95-restart2.jpg
cjpeg -quality 60 -progressive -sample 2x1 "$tmp/b.ppm" >p422-q60.jpg
cjpeg -quality 75 -progressive -sample 1x2 -restart 1 "$tmp/a.ppm" >p440-q75-restart1row.jpg
cjpeg -quality 80 -progressive -grayscale "$tmp/a.ppm" >pgray-q80.jpg
cjpeg -quality 100 -progressive -sample 1x1 "$tmp/c.ppm" >p444-q100.jpg
# Spectral selection only, every DC scan non-interleaved, many small bands.
cat >"$tmp/spectral.txt" <<'SCANS'
0: 0-0, 0, 0;
1: 0-0, 0, 0;
2: 0-0, 0, 0;
0: 1-2, 0, 0;
0: 3-9, 0, 0;
0: 10-63, 0, 0;
1: 1-63, 0, 0;
2: 1-20, 0, 0;
2: 21-63, 0, 0;
SCANS
cjpeg -quality 90 -scans "$tmp/spectral.txt" "$tmp/a.ppm" >p420-spectral.jpg
# Deep successive approximation: every bit plane its own refinement scan.
cat >"$tmp/approx.txt" <<'SCANS'
0 1 2: 0-0, 0, 3;
0 1 2: 0-0, 3, 2;
0 1 2: 0-0, 2, 1;
0 1 2: 0-0, 1, 0;
0: 1-63, 0, 4;
1: 1-63, 0, 3;
2: 1-63, 0, 3;
0: 1-63, 4, 3;
0: 1-63, 3, 2;
1: 1-63, 3, 2;
2: 1-63, 3, 2;
0: 1-63, 2, 1;
1: 1-63, 2, 1;
2: 1-63, 2, 1;
0: 1-63, 1, 0;
1: 1-63, 1, 0;
2: 1-63, 1, 0;
SCANS
cjpeg -quality 92 -sample 2x2 -restart 5B -scans "$tmp/approx.txt" "$tmp/b.ppm" >p420-approx-restart5.jpg
# The same coefficients coded as baseline (lossless transcoding, no restarts): the
# references image/jpeg decodes, as it cannot read some of the restart layouts above.
mkdir -p baseline
for f in p*.jpg; do jpegtran -copy none "$f" >"baseline/$f"; done
