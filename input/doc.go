// Package input is the one way a command's inputs are read: given paths
// (or the invocations of a window) and Options, it tells each input by
// its content once (package sniff), decodes the captures, reads JSON
// traces back into captures (package jsontrace), and yields each source
// with every interpretation the command reads it under — layout, kernel
// name and family, cycle frequency, names, rank, the schedule's
// dependencies — and where each came from (From).
//
// It knows nothing of a command line: the command line's flag groups
// fill Options, and map an Error to an exit code (Invalid: 1, else 2).
// Notes and warnings of loading go to Options.Warn, a line each, naming
// no program (the command line puts its own name before them).
package input
