#!/bin/bash
# mutants.sh: how strong a package's tests are, by two planted faults each:
# the first " == " in code (not a comment) of its first hand-written file
# that has one becomes " != ", and the first "x + 1" becomes "x + 2". Each is planted alone,
# the package's `go test -short` run, and the fault taken out again. A
# fault the tests catch is "killed"; one they pass is "survived"; one that
# does not build is "nobuild".
#
# Run on two checkouts of the same product code with different tests
# (before and after a rewrite of the tests), the two outputs must be the
# same: a rewrite that lets a fault through shows as killed -> survived.
#
# usage: scripts/mutants.sh [PKG...]   (from the repository root; default:
#        the packages a capture goes through and their readers)
# It edits the tree while it runs: use a checkout nothing else is using.
set -u
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(analyze capture decode decode/chromejson decode/flows decode/kernelnames
	decode/perfetto decode/render dump export export/internal/pq input internal/jsonread internal/jsontext
	internal/outfile internal/yamlpos jsontrace kernelfamily manifest plan report sniff synth tracemerge
	tracemeta validate)
# Ctrl-C or a kill puts the planted file back.
restore() { for o in $(find . -name '*.mutants-orig' -not -path '*/node_modules/*'); do mv "$o" "${o%.mutants-orig}"; done; }
trap 'restore; exit 130' INT TERM
plant() { # plant PKG PATTERN SED-EXPR: one fault, its result on a line
	local p=$1 pat=$2 expr=$3 f line r
	# the first line of code (not a comment) that has the pattern
	f='' line=''
	for f in $(grep -l -E -- "$pat" "$p"/*.go 2>/dev/null | grep -v _test.go); do
		line=$(grep -n -E -- "$pat" "$f" | grep -v -E "^[0-9]+:[[:space:]]*//|//.*$pat" | head -1 | cut -d: -f1)
		[ -n "$line" ] && break
	done
	if [ -z "$line" ]; then echo "$p -- none"; return; fi
	cp "$f" "$f.mutants-orig"
	sed -i "${line}${expr}" "$f"
	if ! go build "./$p/" 2>/dev/null; then r=nobuild
	elif go test -short -count=1 "./$p/" >/dev/null 2>&1; then r=survived
	else r=killed; fi
	mv "$f.mutants-orig" "$f"
	echo "$p $f:$line $r"
}
for p in "${pkgs[@]}"; do
	plant "$p" ' == ' 's/ == / != /'
	plant "$p" '[]a-zA-Z0-9_)] \+ 1\b' 's/\([]a-zA-Z0-9_)]\) + 1\b/\1 + 2/'
done
