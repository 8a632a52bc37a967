// Package render holds what the trace writers share: the inputs and how
// each is shown (Config, Input, WriteOptions), their placement in time
// (Prepare, Placement, ShiftNegative), the megaKernelCycleTrace metadata
// object (AppendMeta, which both formats carry as JSON), the args of a
// record (RecordArgs, ExtraArgFields), the output file (Output,
// gzip-compressed in parallel), and the one ordered, parallel pipeline
// that walks each input's records and writes a format's bytes in input
// order (Write, Format).
//
// The formats are packages of their own, each a Format of this pipeline:
// decode/chromejson writes the Chrome Trace Event JSON, which the
// reference decoder writes, and decode/perfetto the native Perfetto
// protobuf; neither links the other.
package render
