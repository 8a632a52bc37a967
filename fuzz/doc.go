// Package fuzz holds the fuzz targets that span packages: capture bytes
// through decode and validate (and the agreement of the two), the trace
// writer, and the parsers of the text files the tools read (the ABI schema,
// names files, schedules). The package has no code of its own; its targets
// are in its tests, their seed corpora under testdata/fuzz/FuzzX/.
//
// Every target caps its input early (maxInput bytes, a bounded cube slot
// count) so that no input makes it allocate more than a few megabytes.
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 60s ./fuzz
//
// scripts/fuzz.sh (make fuzz) runs every target of the module in turn.
package fuzz
