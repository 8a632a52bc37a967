// Package imports holds tests of the module's import graph: internal/
// is infrastructure (the YAML reader, the atomic writer, the schema model
// and the emitters abigen runs) below every product package, so no
// package under internal/ imports one outside it; the command line,
// cmd/internal/cli, only cmd/ imports (TestCLIIsTheTop); of the
// wings of internal/ (the generator wing, internal/abigen, imports no
// product and no product imports it; the test kit, internal/testkit, is
// imported by test files only); of the
// seams of decode and the packages split out of it (the record walk below
// the writers, arrows and names; the Chrome JSON and Perfetto writers
// above the pipeline they share, neither linking the other; tracemerge and
// analyze link only what they use); of the one program (cycleabi links export's
// own Parquet writer and no Parquet library, protobuf reflection, HTTP or
// TLS: TestOneProgramLinksNoNetworkOrReflection; its size and start cost
// stay bounded: TestProgramSize, TestStartCost); and tests use the standard library's
// testing, so no file imports an
// assertion library; and every JSON input is read through
// internal/jsonread (TestOneJSONReader); the layout finder's files call
// one way, no stage calling a later one (TestLayoutSearchReadsOneWay); and
// the size rules: no
// hand-written file over 800 lines, no function of a non-test file over
// 120.
package imports
