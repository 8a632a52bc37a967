// Package render writes decoded captures as traces: what every format
// shares (the inputs and how each is shown, their placement in time, the
// megaKernelCycleTrace metadata object, the args of a record) and the one
// ordered, parallel pipeline that walks each input's records and writes
// the formats' bytes in input order (Write, Format), and the Chrome Trace
// Event JSON format (WriteTrace), which the reference decoder writes and
// the Perfetto format (decode/perfetto) follows.
//
// WriteTrace streams the trace JSON by hand into a buffer (no reflection
// per event), for one capture or several (one per rank, pid = rank).
package render
