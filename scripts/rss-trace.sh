#!/usr/bin/env bash
# Peak RSS and speed of `cycleabi analyze` on a ~1.5 GB MegaKernel JSON
# trace (what a user who kept only the trace has): a synthetic capture of
# RECORDS records (default 4,500,000, 72 active slots) decoded by
# `cycleabi decode` into a JSON trace, then analyzed from the trace, to
# /dev/null. Prints the median of RUNS runs (default 3): wall and CPU
# (user+sys) seconds, MB/s of JSON and events/s over wall time, and peak
# RSS, which must stay under 64 MiB (docs/json-traces.md).
#
#   ./scripts/rss-trace.sh [RUNS] [RECORDS]
#
# Needs GNU time at /usr/bin/time. The capture and the trace go to a
# temporary directory under TMPDIR (about 1.8 GB), removed on exit;
# analyze's spool and rebuilt capture take another 0.4 GB there while it
# runs.
set -euo pipefail
runs="${1:-3}"
records="${2:-4500000}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-trace: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

flags=$(go run ./decode/internal/benchgen/benchcapture -records "$records" -o "$tmp/capture.bin")
# $flags is several words on purpose.
# shellcheck disable=SC2086
"$tmp/cycleabi" decode "$tmp/capture.bin" $flags -o "$tmp/trace.json" 2>/dev/null
rm "$tmp/capture.bin"
bytes=$(stat -c %s "$tmp/trace.json")
echo "trace: $records events, $bytes bytes"
: >"$tmp/times"
for _ in $(seq "$runs"); do
	/usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' \
		"$tmp/cycleabi" analyze "$tmp/trace.json" --format json -o /dev/null
done
secs=$(cut -d' ' -f1 <"$tmp/times" | median)
rss=$(cut -d' ' -f2 <"$tmp/times" | median)
cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
printf '%-10s %9s %9s %9s %12s %14s\n' events "wall s" "cpu s" "MB/s" "events/s" "peak RSS MiB"
awk -v r="$records" -v b="$bytes" -v s="$secs" -v c="$cpu" -v k="$rss" \
	'BEGIN {printf "%-10s %9.2f %9.2f %9.1f %12.0f %14.1f\n", r, s, c, (s > 0 ? b / 1e6 / s : 0), (s > 0 ? r / s : 0), k / 1024}'
maxrss=$(cut -d' ' -f2 <"$tmp/times" | sort -g | tail -1)
if [ "$maxrss" -ge $((64 * 1024)) ]; then
	echo "rss-trace: peak RSS $((maxrss / 1024)) MiB is not under 64 MiB" >&2
	exit 1
fi
echo "peak RSS at most $((maxrss / 1024)) MiB < 64 MiB"
