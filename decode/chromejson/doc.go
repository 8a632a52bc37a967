// Package chromejson writes decoded captures as one Chrome Trace Event
// JSON object (Write), the format the reference decoder writes: for one
// capture or several (one per rank, pid = rank, or invocations of a
// rank), with dependency arrows when the inputs carry them. It is a Format
// of decode/render's pipeline, which places the inputs and renders them
// in parallel; this package holds only the JSON's own parts (its events,
// their microsecond timestamps, its arrows).
//
// Write streams the trace JSON by hand into a buffer (no reflection per
// event).
package chromejson
