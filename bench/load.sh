#!/usr/bin/env bash
# Load test of a real `thumbforge serve` on loopback with hey (Debian package `hey`).
# Usage: bench/load.sh [requests] [concurrency]
# Prints requests/s and latency percentiles for: a validation-error request, a text
# thumbnail (mdl_3, 16:9), and a v2 title request. Bounded: each run sends N requests.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"
C="${2:-16}"
command -v hey >/dev/null || { echo "install hey: apt-get install -y hey" >&2; exit 1; }

tmp="$(mktemp -d)"
port=$((20000 + RANDOM % 20000))
go build -o "$tmp/thumbforge" ./cmd/thumbforge
"$tmp/thumbforge" serve --dev --data "$tmp/data" --addr "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q "dev API key" "$tmp/out" 2>/dev/null && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
key="$(sed -n 's/^dev API key: //p' "$tmp/out")"
acct="$("$tmp/thumbforge" accounts list --data "$tmp/data" --json | sed -n 's/.*"id": "\([^"]*\)".*/\1/p' | head -n1)"
"$tmp/thumbforge" credits add --account "$acct" --amount 100000000 --data "$tmp/data" >/dev/null
"$tmp/thumbforge" accounts concurrency "$acct" 1000 --data "$tmp/data" >/dev/null

run() { # name body path
  echo "== $1 ($N requests, concurrency $C)"
  hey -n "$N" -c "$C" -m POST -H "X-Api-Key: $key" -T application/json -d "$2" "http://127.0.0.1:$port$3" \
    | grep -E "Requests/sec|  (50|90|99)% in|Status code|\[[0-9]{3}\]"
}
run "validation error" '{"model":"mdl_9","format":"4:3"}' /v2/thumbnail/text
run "text thumbnail mdl_3 16:9" '{"prompt":"Ten budget travel tips for Japan","model":"mdl_3","format":"16:9"}' /v2/thumbnail/text
run "titles" '{"prompt":"I tested 5 budget mechanical keyboards under $50 for a month"}' /v2/title/text
