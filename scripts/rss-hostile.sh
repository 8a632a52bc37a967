#!/usr/bin/env bash
# Peak RSS and output size of every command that reads a JSON trace, on
# the hostile traces of docs/limits.md ("A hostile trace is bounded"):
# one long stage name (60 MB and 10 MB), a 60 MB string in an arg no one
# reads, in the metadata, and in a `ph: M` event that is skipped, a 100 MB
# value, and framework traces whose outer kernel is named with 1 MB and
# 60 MB (merge). Each trace is the shipped example's decoded trace (about
# 1 MB) with the one hostile value written in. Prints, per input and
# command, the exit status (1: refused, as bad input), peak RSS and the
# bytes written; fails on an exit status of 2 or more, or when a
# peak reaches 64 MiB, an output exceeds 4 times its input plus 4 MB, or
# merge's exceeds its inputs plus 4.2 KB an event.
#
#   ./scripts/rss-hostile.sh [BIN]
#
# BIN is a folder holding cycleabi to measure instead of building it from
# this tree (to measure another version; an older one's cycleabi-export,
# which its export ran, is copied too when the folder has one).
#
# Needs GNU time at /usr/bin/time and python3 (to write the inputs). The
# inputs (about 0.5 GB) go to a temporary directory, removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in /usr/bin/time python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "rss-hostile: $tool not found" >&2
		exit 2
	fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -n "${1:-}" ]; then
	cp "$1/cycleabi" "$tmp/"
	if [ -e "$1/cycleabi-export" ]; then cp "$1/cycleabi-export" "$tmp/"; fi
else
	CGO_ENABLED=0 go build -o "$tmp/cycleabi" ./cmd/cycleabi # as make build
fi
"$tmp/cycleabi" decode examples/moe_layer.bin -o "$tmp/base.json" 2>/dev/null

# hostile KIND MB OUT writes a copy of a base trace with one long value.
python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
base = open(tmp + "/base.json", "rb").read()
fw = open("examples/moe_layer.kineto.json", "rb").read()
MB = 1000 * 1000

def write(name, parts):
    with open(tmp + "/" + name, "wb") as f:
        for p in parts:
            if isinstance(p, int):  # a run of p 'x'
                chunk = b"x" * (1 << 20)
                while p > 0:
                    f.write(chunk[:p])
                    p -= len(chunk)
            else:
                f.write(p)

def split(text, marker, after=True):
    i = text.index(marker) + (len(marker) if after else 0)
    return text[:i], text[i:]

# The first record event's name.
a, b = split(base, b'{"name":"TaskType_', True)
write("name60.json", [a, 60 * MB, b])
write("name10.json", [a, 10 * MB, b])
# An arg no one reads, on the first record event.
a, b = split(base, b'"args":{"rank":0,', True)
write("arg60.json", [a, b'"unused":"', 60 * MB, b'",', b])
write("value100.json", [a, b'"unused":"', 100 * MB, b'",', b])
# A metadata field.
a, b = split(base, b'"megaKernelCycleTrace":{', True)
write("meta60.json", [a, b'"unused":"', 60 * MB, b'",', b])
# A ph M event, which every reader skips.
a, b = split(base, b'{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{', True)
write("m60.json", [a, b'"unused":"', 60 * MB, b'",', b])
# Framework traces whose outer kernel has a long name.
a, b = split(fw, b'"name": "MegaKernel_moe_layer_7f3a9c', True)
write("fw1.json", [a, 1 * MB, b])
write("fw60.json", [a, 60 * MB, b])
PY

run() { # run INPUT COMMAND ARGS...: one line of the table
	local in="$1" cmd="$2"
	shift 2
	rm -rf "$tmp/out"
	local rc=0
	/usr/bin/time -o "$tmp/time" -f '%M' "$tmp/cycleabi" "$cmd" "$@" 2>"$tmp/stderr" >/dev/null || rc=$?
	local kb out inbytes
	kb=$(tail -1 "$tmp/time")
	out=0
	if [ -e "$tmp/out" ]; then
		out=$(du -sb "$tmp/out" | cut -f1)
	fi
	inbytes=$(stat -c %s "$tmp/$in")
	printf '%-14s %-9s %4s %13s %14s %14s\n' "$in" "$cmd" "$rc" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')" "$inbytes" "$out"
	if [ "$rc" -ge 2 ] || grep -q 'panic' "$tmp/stderr"; then
		echo "rss-hostile: $cmd $in: exit $rc" >&2
		cat "$tmp/stderr" >&2
		fail=1
	fi
	if [ "$kb" -ge $((64 * 1024)) ]; then
		echo "rss-hostile: $cmd $in: peak RSS $((kb / 1024)) MiB is not under 64 MiB" >&2
		fail=1
	fi
	# merge adds to each of the 2,974 events the outer kernel's name,
	# capped at 4,096 bytes: at most 12.2 MB more than its inputs.
	local most=$((4 * inbytes + 4000000))
	if [ "$cmd" = merge ]; then
		most=$((inbytes + $(stat -c %s "$tmp/base.json") + 2974 * 4200 + 1000000))
	fi
	if [ "$out" -gt "$most" ]; then
		echo "rss-hostile: $cmd $in: wrote $out bytes for an input of $inbytes" >&2
		fail=1
	fi
}

fail=0
printf '%-14s %-9s %4s %13s %14s %14s\n' input command exit "peak RSS MiB" "input bytes" "output bytes"
for in in name60.json name10.json arg60.json value100.json meta60.json m60.json; do
	run "$in" validate "$tmp/$in"
	run "$in" analyze "$tmp/$in" -o "$tmp/out"
	run "$in" decode "$tmp/$in" -o "$tmp/out"
	run "$in" report "$tmp/$in" -o "$tmp/out"
	run "$in" export "$tmp/$in" -o "$tmp/out"
done
for in in fw1.json fw60.json; do
	run "$in" merge "$tmp/$in" "$tmp/base.json" -o "$tmp/out"
done
exit "$fail"
