#!/usr/bin/env bash
# Throughput and peak RSS of `cycleabi validate` on 32 MB and 320 MB
# captures in the page cache. The captures are the ones the validate
# benchmarks write (once) to $TMPDIR/cycleabi-bench-<N>mib-<fingerprint>.bin.
# Prints the median of RUNS runs (default 5): wall seconds, GB/s, peak RSS.
#
#   ./scripts/rss-validate.sh [RUNS]
set -euo pipefail
runs="${1:-5}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-validate: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
# Writes the bench captures if they are not there yet.
go test -run '^$' -bench 'Validate' -benchtime 1x ./validate/ >/dev/null

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-10s %12s %8s %8s %14s\n' capture bytes "wall s" "GB/s" "peak RSS MiB"
for mib in 32 320; do
	f=$(ls "${TMPDIR:-/tmp}"/cycleabi-bench-${mib}mib-*.bin | head -1)
	size=$(stat -c %s "$f")
	cat "$f" >/dev/null # into the page cache
	: >"$tmp/times"
	for _ in $(seq "$runs"); do
		/usr/bin/time -a -o "$tmp/times" -f '%e %M' "$tmp/cycleabi" validate "$f" >/dev/null
	done
	secs=$(cut -d' ' -f1 <"$tmp/times" | median)
	rss=$(cut -d' ' -f2 <"$tmp/times" | median)
	awk -v n="${mib}MiB" -v b="$size" -v s="$secs" -v k="$rss" \
		'BEGIN { printf "%-10s %12d %8.2f %8.2f %14.1f\n", n, b, s, (s > 0 ? b / s / 1e9 : 0), k / 1024 }'
done
