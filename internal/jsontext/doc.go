// Package jsontext appends JSON text to byte slices by hand, for the
// writers that stream JSON without reflection (decode/render's
// megaKernelCycleTrace object, decode/chromejson's events): strings
// escaped as encoding/json escapes them (without its HTML escaping),
// unsigned integers, and floats as the reference decoder's Python writes
// them.
package jsontext
