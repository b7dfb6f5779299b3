#!/usr/bin/env bash
# How throughput grows with replicas: 1, 2 and 3 `thumbforge serve` processes on one
# PostgreSQL database and one S3-compatible bucket (versitygw), behind a round-robin proxy
# (bench/rrproxy), loaded with hey (Debian package `hey`). Bounded: each run sends N
# requests. Prints a table of requests/s and latency percentiles.
#
# Usage: bench/cluster.sh [text_requests] [title_requests] [concurrency]
# Env:   THUMBFORGE_BENCH_POSTGRES  a server to create a throw-away database on
#                                   (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)
#        THUMBFORGE_VERSITYGW       versitygw binary (default: PATH, then $(go env GOPATH)/bin;
#                                   scripts/install-versitygw.sh installs it)
set -euo pipefail
cd "$(dirname "$0")/.."
NTEXT="${1:-400}"
NTITLE="${2:-2000}"
C="${3:-16}"
PG="${THUMBFORGE_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
command -v hey >/dev/null || { echo "install hey: apt-get install -y hey" >&2; exit 1; }
command -v psql >/dev/null || { echo "psql is needed to create the benchmark database" >&2; exit 1; }
VGW="${THUMBFORGE_VERSITYGW:-$(command -v versitygw || echo "$(go env GOPATH)/bin/versitygw")}"
[ -x "$VGW" ] || { echo "versitygw not found: run scripts/install-versitygw.sh" >&2; exit 1; }

tmp="$(mktemp -d)"
db="tf_bench_$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q "$PG" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
port() { echo $((20000 + RANDOM % 30000)); }
wait_http() { for _ in $(seq 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

go build -o "$tmp/thumbforge" ./cmd/thumbforge
go build -o "$tmp/rrproxy" ./bench/rrproxy

psql -q "$PG" -c "CREATE DATABASE $db" >/dev/null
DSN="$(echo "$PG" | sed -E "s#(://[^/]*)/[^?]*#\1/$db#")"

s3port="$(port)"
mkdir -p "$tmp/s3/thumbs"
ROOT_ACCESS_KEY=benchkey ROOT_SECRET_KEY=bench-secret-0123456789 "$VGW" --port "127.0.0.1:$s3port" posix "$tmp/s3" >"$tmp/s3.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$s3port/"
BLOBS="s3://thumbs?endpoint=http://127.0.0.1:$s3port&region=us-east-1&use_path_style=true&disable_https=true&access_key=benchkey&secret_key=bench-secret-0123456789"

tf() { "$tmp/thumbforge" "$@" --database "$DSN"; }
acct="$(tf accounts create --name bench --credits 100000000 --json | sed -n 's/^  "id": "\([^"]*\)".*/\1/p')"
tf accounts concurrency "$acct" 1000 >/dev/null
key="$(tf keys create --account "$acct" --json | sed -n 's/.*"key": "\([^"]*\)".*/\1/p')"

backends=()
add_replica() {
  local p; p="$(port)"
  "$tmp/thumbforge" serve --addr "127.0.0.1:$p" --data "$tmp/r${#backends[@]}" --database "$DSN" --blobs "$BLOBS" \
    >"$tmp/r${#backends[@]}.log" 2>&1 &
  pids+=($!)
  wait_http "http://127.0.0.1:$p/readyz"
  backends+=("http://127.0.0.1:$p")
}

TEXT='{"prompt":"Ten budget travel tips for Japan","model":"mdl_3","format":"16:9"}'
TITLE='{"prompt":"I tested 5 budget mechanical keyboards under $50 for a month"}'
rows=()
measure() { # label url-base
  for w in text title; do
    local n body path
    if [ $w = text ]; then n=$NTEXT body=$TEXT path=/v2/thumbnail/text; else n=$NTITLE body=$TITLE path=/v2/title/text; fi
    hey -n "$n" -c "$C" -m POST -H "X-Api-Key: $key" -T application/json -d "$body" "$2$path" >"$tmp/hey.out"
    local rps p50 p99 codes
    rps="$(awk '/Requests\/sec/ {printf "%.1f", $2}' "$tmp/hey.out")"
    p50="$(awk '/  50% in/ {printf "%.0f", $3*1000}' "$tmp/hey.out")"
    p99="$(awk '/  99% in/ {printf "%.0f", $3*1000}' "$tmp/hey.out")"
    codes="$(grep -E '^\s+\[[0-9]{3}\]' "$tmp/hey.out" | awk '{printf "%s%s", sep, $1 $2; sep=" "}')"
    # Transport errors (timeouts, resets) are listed after the status codes, as [count] error.
    local errs; errs="$(sed -n '/Error distribution/,$p' "$tmp/hey.out" | awk -F'[][]' '/^\s+\[[0-9]+\]/ {n+=$2} END {print n+0}')"
    rows+=("$(printf '%-22s %-6s %8s %8s %8s %7s   %s' "$1" "$w" "$rps" "$p50" "$p99" "$errs" "$codes")")
  done
}

proxy=""
for n in 1 2 3; do
  add_replica
  if [ "$n" = 1 ]; then measure "1 replica, direct" "${backends[0]}"; fi
  [ -n "$proxy" ] && kill "$proxy" && wait "$proxy" 2>/dev/null || true
  pport="$(port)"
  "$tmp/rrproxy" -listen "127.0.0.1:$pport" "${backends[@]}" 2>"$tmp/proxy.log" &
  proxy=$!
  pids+=($proxy)
  wait_http "http://127.0.0.1:$pport/healthz"
  measure "$n replica(s), proxy" "http://127.0.0.1:$pport"
done

echo "cores: $(nproc); load average at the end:$(uptime | sed 's/.*load average://'); text: $NTEXT requests, titles: $NTITLE requests, concurrency $C"
printf '%-22s %-6s %8s %8s %8s %7s   %s\n' "setup" "work" "req/s" "p50 ms" "p99 ms" "errors" "status codes"
printf '%s\n' "${rows[@]}"
