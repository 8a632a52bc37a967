#!/usr/bin/env bash
# Speed, size and peak RSS of `cycleabi export` (Parquet) against decode to
# JSON on a synthetic 256 MB capture (4M records, 72 active slots), and of
# analyze and export across 64, 256 and 1,024 ranks (one small capture per
# rank, 100k records each, hard links of one file). Prints the median of
# RUNS runs (default 3) of each: wall and CPU seconds, output size, peak RSS.
#
#   ./scripts/rss-export.sh [RUNS]
#
# Needs GNU time at /usr/bin/time. Captures and outputs go to a temporary
# directory (about 1 GB at most), removed on exit.
set -euo pipefail
runs="${1:-3}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-export: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# row NAME OUTPUT CMD...: runs CMD runs times (OUTPUT removed before each),
# prints the medians and OUTPUT's size.
row() {
	local name=$1 out=$2
	shift 2
	: >"$tmp/times"
	for _ in $(seq "$runs"); do
		rm -rf "$out"
		/usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' "$@" >/dev/null 2>&1
	done
	local secs rss cpu size
	secs=$(cut -d' ' -f1 <"$tmp/times" | median)
	rss=$(cut -d' ' -f2 <"$tmp/times" | median)
	cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
	size=0
	[ -e "$out" ] && size=$(du -sb "$out" | cut -f1)
	awk -v n="$name" -v s="$secs" -v c="$cpu" -v z="$size" -v k="$rss" \
		'BEGIN {printf "%-34s %8.2f %8.2f %10.1f %12.1f\n", n, s, c, z/1e6, k/1024}'
}

printf '%-34s %8s %8s %10s %12s\n' "what" "wall s" "cpu s" "out MB" "peak RSS MiB"
flags=$(go run ./decode/internal/benchgen/benchcapture -records 4000000 -o "$tmp/256MB.bin")
# $flags is several words on purpose.
# shellcheck disable=SC2086
row "decode 256 MB -> trace.json" "$tmp/trace.json" "$tmp/cycleabi" decode "$tmp/256MB.bin" $flags -o "$tmp/trace.json"
# shellcheck disable=SC2086
row "export 256 MB -> Parquet" "$tmp/parquet" "$tmp/cycleabi" export "$tmp/256MB.bin" $flags -o "$tmp/parquet"
rm -f "$tmp/256MB.bin" "$tmp/trace.json"

flags=$(go run ./decode/internal/benchgen/benchcapture -records 100000 -o "$tmp/one.bin")
for n in 64 256 1024; do
	mkdir -p "$tmp/ranks$n"
	for r in $(seq 0 $((n - 1))); do ln "$tmp/one.bin" "$tmp/ranks$n/rank$r.bin"; done
	# shellcheck disable=SC2086
	row "analyze $n ranks x 100k records" "$tmp/analysis.json" "$tmp/cycleabi" analyze "$tmp/ranks$n"/rank*.bin $flags --format json -o "$tmp/analysis.json"
	# shellcheck disable=SC2086
	row "export $n ranks x 100k records" "$tmp/parquet" "$tmp/cycleabi" export "$tmp/ranks$n"/rank*.bin $flags -o "$tmp/parquet"
	rm -rf "$tmp/ranks$n"
done
