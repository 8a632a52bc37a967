#!/usr/bin/env bash
# Start cost: the median wall time of `cycleabi --version`, of validate on
# a small capture (the shipped example, 152 KB) and of an export of it to
# Parquet, against a hello-world Go binary. Each command runs RUNS times,
# interleaved so a busy machine slows all alike. Both binaries are built
# as make build builds (CGO_ENABLED=0); their sizes and the modules each
# links (go version -m) are printed first.
# Usage: scripts/start-cost.sh [RUNS]
set -euo pipefail
runs="${1:-200}"
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$tmp/hello.go"
(cd "$tmp" && CGO_ENABLED=0 go build -o hello hello.go)
CGO_ENABLED=0 go build -o "$tmp/" ./cmd/cycleabi

echo "binaries (bytes; the modules each links, go version -m):"
for b in hello cycleabi; do
	deps=$(go version -m "$tmp/$b" | awk '$1 == "dep" {sub(/^github.com\/|^google.golang.org\//, "", $2); printf "%s%s", sep, $2; sep = ", "}')
	printf '  %-16s %9d  %s\n' "$b" "$(stat -c %s "$tmp/$b")" "${deps:-(standard library only)}"
done

# time_us CMD...: one run's wall time in microseconds.
time_us() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
}
# export_us CMD...: time_us of an export into $tmp/out, removed first.
export_us() {
	rm -rf "$tmp/out"
	time_us "$@" -o "$tmp/out"
}
rows=(hello version validate export)
for k in "${rows[@]}"; do : >"$tmp/$k.t"; done
ex=examples/moe_layer.bin
for _ in $(seq "$runs"); do
	time_us "$tmp/hello" >>"$tmp/hello.t"
	time_us "$tmp/cycleabi" --version >>"$tmp/version.t"
	time_us "$tmp/cycleabi" validate "$ex" >>"$tmp/validate.t"
	export_us "$tmp/cycleabi" export "$ex" >>"$tmp/export.t"
done
[ -d "$tmp/out" ] || { echo "start-cost: the export of $ex failed" >&2; exit 1; }
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
h=$(median "$tmp/hello.t")
printf 'start cost, median of %d runs (load average %s):\n' "$runs" "$(cut -d' ' -f1 /proc/loadavg)"
printf '  %-45s %6d us\n' "hello-world Go binary" "$h"
for k in "${rows[@]:1}"; do
	case $k in
	version) what="cycleabi --version" ;;
	validate) what="cycleabi validate (152 KB)" ;;
	export) what="cycleabi export (152 KB -> Parquet)" ;;
	esac
	m=$(median "$tmp/$k.t")
	printf '  %-45s %6d us  (%s x hello)\n' "$what" "$m" "$(awk -v a="$m" -v b="$h" 'BEGIN {printf "%.2f", a/b}')"
done
