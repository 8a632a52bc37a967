#!/usr/bin/env bash
# Time, peak RSS and page size of `cycleabi report` across many ranks: one
# synthetic capture of 100k records (benchcapture) under RANKS names
# (hard links rank0.bin … ), given in a shuffled order (a fixed one, the
# same for every binary), as docs/performance.md reports them. Prints the
# median of RUNS runs (default 3) of each binary: wall and CPU seconds,
# page MB, peak RSS.
#
#   ./scripts/rss-report-ranks.sh [RUNS [RANKS [CYCLEABI...]]]
#
# RANKS defaults to 1024. Without CYCLEABI the tree's own cycleabi is built
# and measured; give binaries (the build of another commit) to compare.
# Needs GNU time at /usr/bin/time and shuf. Captures and pages go to a
# temporary directory, removed on exit.
set -euo pipefail
runs="${1:-3}"
n="${2:-1024}"
shift 2 || shift $#
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-report-ranks: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	CGO_ENABLED=0 go build -o "$tmp/" ./cmd/cycleabi
	bins=("$tmp/cycleabi")
fi
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

flags=$(go run ./decode/internal/benchgen/benchcapture -records 100000 -o "$tmp/one.bin")
mkdir -p "$tmp/ranks"
for r in $(seq 0 $((n - 1))); do ln "$tmp/one.bin" "$tmp/ranks/rank$r.bin"; done
# A fixed shuffled order: the order given must not matter (it must not
# leak into the page either).
(cd "$tmp/ranks" && ls rank*.bin | shuf --random-source=<(yes 40)) >"$tmp/order"

printf '%-44s %8s %8s %8s %12s\n' "what" "wall s" "cpu s" "page MB" "peak RSS MiB"
for bin in "${bins[@]}"; do
	: >"$tmp/times"
	for _ in $(seq "$runs"); do
		rm -f "$tmp/report.html"
		# shellcheck disable=SC2086,SC2046
		(cd "$tmp/ranks" && /usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' "$bin" report $(cat "$tmp/order") $flags -o "$tmp/report.html" >/dev/null 2>&1)
	done
	secs=$(cut -d' ' -f1 <"$tmp/times" | median)
	rss=$(cut -d' ' -f2 <"$tmp/times" | median)
	cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
	size=$(stat -c %s "$tmp/report.html")
	awk -v n="report $n ranks x 100k ($(basename "$bin"))" -v s="$secs" -v c="$cpu" -v z="$size" -v k="$rss" \
		'BEGIN {printf "%-44s %8.2f %8.2f %8.2f %12.1f\n", n, s, c, z/1048576, k/1024}'
done
