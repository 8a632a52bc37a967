#!/usr/bin/env bash
# Peak RSS and speed of `cycleabi merge` on a generated Kineto-style
# framework trace of SIZE bytes (default 1.1 GB; about 7.1M events, 697
# MegaKernel launches), merging the shipped example's decoded trace (2974
# events) to /dev/null. With MATCHING > 0 the trace instead holds MATCHING
# kernels whose name matches (each step one cpu_op and one MegaKernel
# launch; SIZE is ignored): what merge's memory used to grow with. Prints
# wall and CPU (user+sys) seconds, MB/s over wall time and peak RSS of
# each of RUNS runs (default 3).
#
#   ./scripts/rss-merge.sh [RUNS] [SIZE] [MATCHING]
#
# Needs GNU time at /usr/bin/time. The trace goes to a temporary directory
# (SIZE bytes), removed on exit.
set -euo pipefail
runs="${1:-3}"
size="${2:-1100000000}"
matching="${3:-0}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-merge: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
if [ "$matching" -gt 0 ]; then
	go run ./tracemerge/internal/fwgen -kernels "$matching" -ops 1 -every 1 -o "$tmp/framework.json"
else
	go run ./tracemerge/internal/fwgen -size "$size" -every 100 -o "$tmp/framework.json"
fi
"$tmp/cycleabi" decode examples/moe_layer.bin -o "$tmp/mk.json" 2>/dev/null
bytes=$(stat -c %s "$tmp/framework.json")
printf '%-14s %9s %9s %9s %14s\n' "trace bytes" "wall s" "cpu s" "MB/s" "peak RSS MiB"
for _ in $(seq "$runs"); do
	if ! /usr/bin/time -o "$tmp/time" -f '%e %M %U %S' "$tmp/cycleabi" merge "$tmp/framework.json" "$tmp/mk.json" \
		--kernel-index 3 -o /dev/null 2>"$tmp/stderr"; then
		cat "$tmp/stderr" >&2
		exit 1
	fi
	read -r secs rss usr sys <"$tmp/time"
	awk -v b="$bytes" -v s="$secs" -v k="$rss" -v u="$usr" -v y="$sys" \
		'BEGIN {printf "%-14d %9.2f %9.2f %9.0f %14.1f\n", b, s, u + y, (s > 0 ? b / s / 1e6 : 0), k / 1024}'
done
