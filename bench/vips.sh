#!/usr/bin/env bash
# Image-to-thumbnail speed, thumbforge vs libvips, side by side on the same input.
# Usage: bench/vips.sh [repetitions]   (needs vipsthumbnail: apt-get install -y libvips-tools)
#
# Input: a 4000x3000 photo-like JPEG generated once by bench/imagebench (kept in
# $TMPDIR/thumbforge-bench/). thumbforge: jpegscale.Decode(data, 1280) -> engine mdl_2 16:9, no prompt
# -> stdlib JPEG encode q88, in one process (bench/imagebench run). libvips: one
# vipsthumbnail process per image (cover crop to 1280x720, Q=88), with --smartcrop
# attention (salient crop, like thumbforge) and with --crop (centre), plus one process
# for all N copies (startup amortized, the fairest comparison). Prints per-image
# wall times and the ratio thumbforge / libvips (goal <= 1.5).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-20}"
command -v vipsthumbnail >/dev/null || { echo "install libvips-tools: apt-get install -y libvips-tools" >&2; exit 1; }

cache="${TMPDIR:-/tmp}/thumbforge-bench"
mkdir -p "$cache"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/imagebench" ./bench/imagebench
[ -s "$cache/in-4000x3000.jpg" ] || "$tmp/imagebench" gen -o "$cache/in-4000x3000.jpg"
in="$cache/in-4000x3000.jpg"

now() { date +%s%N; }
vips_ms() { # mode flag -> per-image wall ms over N runs
  local t0 t1
  t0=$(now)
  for _ in $(seq "$N"); do
    vipsthumbnail "$in" --size 1280x720 "$@" -o "$tmp/vips.jpg[Q=88]"
  done
  t1=$(now)
  echo "scale=2; ($t1 - $t0) / 1000000 / $N" | bc
}

vips_batch_ms() { # one vipsthumbnail process for all N copies: startup amortized
  local t0 t1 files=()
  for i in $(seq "$N"); do ln -sf "$(realpath "$in")" "$tmp/in$i.jpg"; files+=("$tmp/in$i.jpg"); done
  t0=$(now)
  vipsthumbnail "${files[@]}" --size 1280x720 "$@" -o "$tmp/%s_out.jpg[Q=88]"
  t1=$(now)
  echo "scale=2; ($t1 - $t0) / 1000000 / $N" | bc
}

echo "input: $in ($(stat -c %s "$in") bytes), $N repetitions each, $(nproc) cores"
"$tmp/imagebench" run -in "$in" -n "$N" -o "$tmp/tf.jpg" | tee "$tmp/tf.txt"
tf=$(sed -n 's/^THUMBFORGE_MS=//p' "$tmp/tf.txt")
va=$(vips_ms --smartcrop attention)
vc=$(vips_ms --crop)
vb=$(vips_batch_ms --smartcrop attention)
echo "vipsthumbnail --smartcrop attention: $va ms/image (process per image)"
echo "vipsthumbnail --smartcrop attention: $vb ms/image (one process for all $N)"
echo "vipsthumbnail --crop (centre):       $vc ms/image (process per image)"
echo "ratio thumbforge/vips (attention): $(echo "scale=2; $tf / $va" | bc)"
echo "ratio thumbforge/vips (centre):    $(echo "scale=2; $tf / $vc" | bc)"
echo "ratio thumbforge/vips (attention, one process): $(echo "scale=2; $tf / $vb" | bc)"
