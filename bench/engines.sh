#!/usr/bin/env bash
# Benchmark of a generative engine pool: a real `thumbforge serve --engine openai` on
# loopback in front of fake OpenAI backends (bench/enginefake, another process) that
# answer every image after a fixed delay with the same 1536x1024 photo-like PNG.
# Usage: bench/engines.sh [requests] [clients] [backends] [delay]
# Prints requests/s (the backends allow backends/delay), latency percentiles, and the
# CPU thumbforge spends per request (from /proc: decode the model's picture, crop,
# headline, JPEG encode, store, and the HTTP and credit work around them).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-400}"
C="${2:-16}"
B="${3:-4}"
D="${4:-300ms}"
command -v hey >/dev/null || { echo "install hey: apt-get install -y hey" >&2; exit 1; }

tmp="$(mktemp -d)"
port=$((20000 + RANDOM % 20000))
go build -o "$tmp/thumbforge" ./cmd/thumbforge
go build -o "$tmp/enginefake" ./bench/enginefake
"$tmp/enginefake" -n "$B" -delay "$D" >"$tmp/urls" 2>"$tmp/fake.log" &
fpid=$!
trap 'kill $pid $fpid 2>/dev/null; wait $pid $fpid 2>/dev/null; rm -rf "$tmp"' EXIT
pid=""
for _ in $(seq 100); do [ -s "$tmp/urls" ] && break; sleep 0.1; done
${THUMBFORGE_BENCH_ENV:-} "$tmp/thumbforge" serve --dev --data "$tmp/data" --addr "127.0.0.1:$port" \
  --engine openai --engine-url "$(cat "$tmp/urls")" --engine-concurrency 1 --engine-key sk-bench \
  >"$tmp/out" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q "dev API key" "$tmp/out" 2>/dev/null && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
key="$(sed -n 's/^dev API key: //p' "$tmp/out")"
acct="$("$tmp/thumbforge" accounts list --data "$tmp/data" --json | sed -n 's/.*"id": "\([^"]*\)".*/\1/p' | head -n1)"
"$tmp/thumbforge" credits add --account "$acct" --amount 100000000 --data "$tmp/data" >/dev/null
"$tmp/thumbforge" accounts concurrency "$acct" 1000 --data "$tmp/data" >/dev/null
cat "$tmp/fake.log"

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz="$(getconf CLK_TCK)"
body='{"prompt":"Ten budget travel tips for Japan","model":"mdl_3","format":"16:9"}'
run() { # requests clients
  local before after
  before="$(ticks)"
  hey -n "$1" -c "$2" -t 120 -m POST -H "X-Api-Key: $key" -T application/json -d "$body" \
    "http://127.0.0.1:$port/v2/thumbnail/text" >"$tmp/hey"
  after="$(ticks)"
  grep -E "Requests/sec|  (50|90|99)% in|^ *\[[0-9]{3}\]" "$tmp/hey"
  awk -v t=$((after - before)) -v hz="$hz" -v n="$1" 'BEGIN { printf "  thumbforge CPU: %.1f ms per request\n", t * 1000 / hz / n }'
}
echo "== warm-up (16 requests, 4 clients)"; run 16 4 >/dev/null
echo "== one client, $((N / 10)) requests: latency = backend delay + what thumbforge adds"
run $((N / 10)) 1
echo "== $C clients, $N requests, $B backends x 1 slot, $D each: the backends allow $(awk -v b="$B" -v d="${D%ms}" 'BEGIN{printf "%.1f", b*1000/d}')/s"
run "$N" "$C"
