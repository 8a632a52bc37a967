#!/usr/bin/env bash
# Start cost: the median wall time of `cycleabi --version` and of validate on
# a small capture (the shipped example, 152 KB) against a hello-world Go
# binary, each run RUNS times, interleaved so a busy machine slows all alike.
# Both binaries are built as make build builds (CGO_ENABLED=0).
# Usage: scripts/start-cost.sh [RUNS]
set -euo pipefail
runs="${1:-200}"
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello.go"
(cd "$tmp" && CGO_ENABLED=0 go build -o hello hello.go)
CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi

# time_us CMD...: one run's wall time in microseconds.
time_us() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
}
: >"$tmp/hello.t" >"$tmp/version.t" >"$tmp/validate.t"
for _ in $(seq "$runs"); do
	time_us "$tmp/hello" >>"$tmp/hello.t"
	time_us "$tmp/cycleabi" --version >>"$tmp/version.t"
	time_us "$tmp/cycleabi" validate examples/moe_layer.bin >>"$tmp/validate.t"
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
h=$(median "$tmp/hello.t")
printf 'start cost, median of %d runs (load average %s):\n' "$runs" "$(cut -d' ' -f1 /proc/loadavg)"
printf '  hello-world Go binary        %6d us\n' "$h"
for k in version validate; do
	m=$(median "$tmp/$k.t")
	printf '  cycleabi %-20s %6d us  (%s x hello)\n' "$([ $k = version ] && echo --version || echo 'validate (152 KB)')" "$m" "$(awk -v a="$m" -v b="$h" 'BEGIN {printf "%.2f", a/b}')"
done
