// Package perfettopb holds Go types generated from perfetto_subset.proto,
// the part of Perfetto's trace format that decode's Perfetto writer
// uses, transcribed from the Perfetto repository's protos. Only decode's
// tests import it: they decode the writer's output with protobuf-go
// rather than with the writer's own encoder. The product writes the
// format by hand with protowire and needs no generated code.
//
// After editing perfetto_subset.proto, regenerate with protoc (Debian's
// protobuf-compiler) and protoc-gen-go at the protobuf module version of
// go.mod, which the test builds from the module cache:
//
//	go test ./decode/perfetto/internal/perfettopb -update
//
// Without -update, TestGenerated regenerates into a temporary folder and
// fails when the committed file differs (but for the protoc version in its
// header); it is skipped without protoc on PATH unless
// CYCLEABI_REQUIRE_PROTOC is set, as make ci sets it.
package perfettopb
