// Package roundtrip runs simulated captures through the decoder and the
// validator: whatever synth writes, decode reads back exactly and validate
// finds no error in. It has no code of its own; it is separate from
// package synth so that synth's own tests do not depend on decode.
package roundtrip
