#!/usr/bin/env bash
# Peak RSS and speed of `cycleabi decode` on synthetic 32 MB (500k records)
# and 320 MB (5M records) captures: 72 active slots, one out of start order,
# decoded from the file to /dev/null, once on all cores and once with
# GOMAXPROCS=1. Prints the median of RUNS runs (default 5) of each: wall
# and CPU (user+sys) seconds, events/s over wall time, and peak RSS.
#
#   ./scripts/rss-decode.sh [RUNS]
#
# Needs GNU time at /usr/bin/time. The captures go to a temporary directory
# (about 350 MB), removed on exit.
set -euo pipefail
runs="${1:-5}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-decode: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-8s %-9s %-6s %9s %9s %12s %14s\n' capture records procs "wall s" "cpu s" "events/s" "peak RSS MiB"
for spec in "32MB 500000" "320MB 5000000"; do
	read -r name records <<<"$spec"
	flags=$(go run ./decode/internal/benchgen/benchcapture -records "$records" -o "$tmp/$name.bin")
	for procs in "$(nproc)" 1; do
		: >"$tmp/times"
		for _ in $(seq "$runs"); do
			# $flags is several words on purpose.
			# shellcheck disable=SC2086
			GOMAXPROCS=$procs /usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' \
				"$tmp/cycleabi" decode "$tmp/$name.bin" $flags -o /dev/null 2>/dev/null
		done
		secs=$(cut -d' ' -f1 <"$tmp/times" | median)
		rss=$(cut -d' ' -f2 <"$tmp/times" | median)
		cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
		awk -v n="$name" -v r="$records" -v p="$procs" -v s="$secs" -v c="$cpu" -v k="$rss" \
			'BEGIN {printf "%-8s %-9s %-6s %9.2f %9.2f %12.0f %14.1f\n", n, r, p, s, c, (s > 0 ? r / s : 0), k / 1024}'
	done
done
