// Package fuzz holds the fuzz targets that span packages: the agreement of
// decode and validate on any capture bytes, and the ABI schema loader
// followed by every emitter (Go, C++, Python, docs). The package has no code of its own; its
// targets are in its tests, their seed corpora under testdata/fuzz/FuzzX/.
// A target that exercises one package lives in that package (decode:
// FuzzDecode, the names file, the trace writer; validate: FuzzValidate;
// plan: the schedule parser); the capture targets share their seeds and
// checks through package capture/capturetest.
//
// Every target caps its input early (capturetest.MaxFuzzInput bytes, a
// bounded cube slot count) so that no input makes it allocate more than a
// few megabytes.
//
//	go test -run '^$' -fuzz '^FuzzAgreement$' -fuzztime 60s ./fuzz
//
// scripts/fuzz.sh (make fuzz) runs every target of the module in turn.
package fuzz
