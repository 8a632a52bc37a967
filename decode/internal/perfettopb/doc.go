// Package perfettopb holds Go types generated from perfetto_subset.proto,
// the part of Perfetto's trace format that decode's Perfetto writer
// uses, transcribed from the Perfetto repository's protos. Only decode's
// tests import it: they decode the writer's output with protobuf-go
// rather than with the writer's own encoder. The product writes the
// format by hand with protowire and needs no generated code.
//
// After editing perfetto_subset.proto, regenerate (protoc 3.21 from
// Debian's protobuf-compiler, protoc-gen-go at the protobuf module
// version of go.mod):
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	cd decode/internal/perfettopb && protoc --go_out=. --go_opt=paths=source_relative perfetto_subset.proto
package perfettopb
