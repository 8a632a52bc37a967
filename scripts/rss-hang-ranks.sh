#!/usr/bin/env bash
# Peak RSS and time of `cycleabi analyze --plan` over RANKS captures of
# the shipped MoE schedule: healthy (synth) against stopped (synth
# --stop-in-task TASK: the kernel hangs with one core stopped inside a task,
# so every rank's analysis carries its diagnosis). Prints the median of
# RUNS runs of each (docs/memory.md: a stopped cluster's analysis stays
# within the memory of a healthy one's).
#
#   ./scripts/rss-hang-ranks.sh [RUNS [RANKS [TASK]]]     (3, 1024, 100)
#
# Needs GNU time at /usr/bin/time. Captures go to a temporary directory
# (hard links of one capture per kind), removed on exit.
set -euo pipefail
runs="${1:-3}"
n="${2:-1024}"
task="${3:-100}"
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then
	echo "rss-hang-ranks: /usr/bin/time (GNU time) not found (apt-get install time)" >&2
	exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/" ./cmd/cycleabi
bin="$tmp/cycleabi"
schedule=examples/moe_layer.yaml
"$bin" synth "$schedule" --seed 1 -o "$tmp/healthy.bin" >/dev/null
"$bin" synth "$schedule" --seed 1 --stop-in-task "$task" -o "$tmp/stopped.bin" >/dev/null
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '%-40s %8s %8s %12s\n' "what" "wall s" "cpu s" "peak RSS MiB"
for kind in healthy stopped; do
	mkdir -p "$tmp/$kind"
	for r in $(seq 0 $((n - 1))); do ln "$tmp/$kind.bin" "$tmp/$kind/rank$r.bin"; done
	: >"$tmp/times"
	for _ in $(seq "$runs"); do
		# shellcheck disable=SC2046
		(cd "$tmp/$kind" && /usr/bin/time -a -o "$tmp/times" -f '%e %M %U %S' "$bin" analyze $(ls) --plan "$OLDPWD/$schedule" --format json -o "$tmp/$kind.json" >/dev/null 2>&1) || true
	done
	secs=$(cut -d' ' -f1 <"$tmp/times" | median)
	rss=$(cut -d' ' -f2 <"$tmp/times" | median)
	cpu=$(awk '{print $3 + $4}' <"$tmp/times" | median)
	awk -v w="analyze --plan, $n $kind ranks" -v s="$secs" -v c="$cpu" -v k="$rss" \
		'BEGIN {printf "%-40s %8.2f %8.2f %12.1f\n", w, s, c, k/1024}'
done
grep -c '"diagnosis"' "$tmp/stopped.json" >/dev/null || { echo "rss-hang-ranks: the stopped analysis has no diagnosis" >&2; exit 1; }
