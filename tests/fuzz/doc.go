// Package fuzz holds the fuzz targets that span packages: capture bytes
// through decode and validate and the agreement of the two (sharing one
// seed set of valid and broken captures, and one check of a
// capture.Problem), and the ABI schema loader followed by every emitter.
// The package has no code of its own; its targets are in its tests, their
// seed corpora under testdata/fuzz/FuzzX/. A target that exercises one
// package lives in that package (decode: the names file and the trace
// writer; plan: the schedule parser).
//
// Every target caps its input early (maxInput bytes, a bounded cube slot
// count) so that no input makes it allocate more than a few megabytes.
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 60s ./tests/fuzz
//
// scripts/fuzz.sh (make fuzz) runs every target of the module in turn.
package fuzz
