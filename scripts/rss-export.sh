#!/usr/bin/env bash
# Speed, size and peak RSS of `cycleabi export` (Parquet) against decode to
# JSON on a synthetic 256 MB capture (4M records, 72 active slots), and of
# analyze and export across 64, 256 and 1,024 ranks (one small capture per
# rank, 100k records each, hard links of one file). Prints the median of
# RUNS runs (default 5) of each: wall and CPU seconds, output size, peak RSS.
# Export and decode of the 256 MB capture run alternately, every other run
# starting with the other, so that both see the same load; the ratio row is
# export's medians over decode's.
#
#   ./scripts/rss-export.sh [RUNS [RANKS...]]
#
# RANKS are the rank counts of the rows across ranks (default 64 256 1024;
# "none" for the 256 MB pair alone).
#
# Needs GNU time at /usr/bin/time. Captures and outputs go to a temporary
# directory (about 1 GB at most), removed on exit.
set -euo pipefail
runs="${1:-5}"
shift || true
ranks="${*:-64 256 1024}"
[ "$ranks" = none ] && ranks=""
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-export: /usr/bin/time (GNU time) not found" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/" ./cmd/cycleabi # as make build

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# measure FILE OUTPUT CMD...: one run of CMD under GNU time, OUTPUT removed
# first, its wall, RSS, user and system time appended to FILE.
measure() {
	local file=$1 out=$2
	shift 2
	rm -rf "$out"
	/usr/bin/time -a -o "$file" -f '%e %M %U %S' "$@" >/dev/null 2>&1
}

# report NAME FILE OUTPUT: prints the medians of FILE and OUTPUT's size.
report() {
	local secs rss cpu size
	secs=$(cut -d' ' -f1 <"$2" | median)
	rss=$(cut -d' ' -f2 <"$2" | median)
	cpu=$(awk '{print $3 + $4}' <"$2" | median)
	size=0
	[ -e "$3" ] && size=$(du -sb "$3" | cut -f1)
	awk -v n="$1" -v s="$secs" -v c="$cpu" -v z="$size" -v k="$rss" \
		'BEGIN {printf "%-34s %8.2f %8.2f %10.1f %12.1f\n", n, s, c, z/1e6, k/1024}'
	echo "$secs $cpu $size" >"$2.medians"
}

# row NAME OUTPUT CMD...: runs CMD runs times (OUTPUT removed before each),
# prints the medians and OUTPUT's size.
row() {
	local name=$1 out=$2
	shift 2
	: >"$tmp/times"
	for _ in $(seq "$runs"); do measure "$tmp/times" "$out" "$@"; done
	report "$name" "$tmp/times" "$out"
}

printf '%-34s %8s %8s %10s %12s\n' "what" "wall s" "cpu s" "out MB" "peak RSS MiB"
flags=$(go run ./decode/internal/benchgen/benchcapture -records 4000000 -o "$tmp/256MB.bin")
# $flags is several words on purpose.
: >"$tmp/decode" && : >"$tmp/export"
for i in $(seq "$runs"); do
	pair=(decode export)
	[ $((i % 2)) -eq 0 ] && pair=(export decode)
	for what in "${pair[@]}"; do
		if [ "$what" = decode ]; then
			# shellcheck disable=SC2086
			measure "$tmp/decode" "$tmp/trace.json" "$tmp/cycleabi" decode "$tmp/256MB.bin" $flags -o "$tmp/trace.json"
		else
			# shellcheck disable=SC2086
			measure "$tmp/export" "$tmp/parquet" "$tmp/cycleabi" export "$tmp/256MB.bin" $flags -o "$tmp/parquet"
		fi
	done
done
report "decode 256 MB -> trace.json" "$tmp/decode" "$tmp/trace.json"
report "export 256 MB -> Parquet" "$tmp/export" "$tmp/parquet"
read -r ds dc dz <"$tmp/decode.medians"
read -r es ec ez <"$tmp/export.medians"
awk -v ds="$ds" -v dc="$dc" -v dz="$dz" -v es="$es" -v ec="$ec" -v ez="$ez" \
	'BEGIN {printf "%-34s %8.2f %8.2f %10s\n", "export / decode", es/ds, ec/dc, sprintf("1/%.1f", dz/ez)}'
rm -rf "$tmp/parquet"
rm -f "$tmp/256MB.bin" "$tmp/trace.json"

[ -z "$ranks" ] && exit 0
flags=$(go run ./decode/internal/benchgen/benchcapture -records 100000 -o "$tmp/one.bin")
for n in $ranks; do
	mkdir -p "$tmp/ranks$n"
	for r in $(seq 0 $((n - 1))); do ln "$tmp/one.bin" "$tmp/ranks$n/rank$r.bin"; done
	# shellcheck disable=SC2086
	row "analyze $n ranks x 100k records" "$tmp/analysis.json" "$tmp/cycleabi" analyze "$tmp/ranks$n"/rank*.bin $flags --format json -o "$tmp/analysis.json"
	# shellcheck disable=SC2086
	row "export $n ranks x 100k records" "$tmp/parquet" "$tmp/cycleabi" export "$tmp/ranks$n"/rank*.bin $flags -o "$tmp/parquet"
	rm -rf "$tmp/ranks$n"
done
