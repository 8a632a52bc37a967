// Package input is the one way a command's inputs are read: given paths
// (or the invocations of a window) and Options, it tells each input by
// its content once (package sniff), decodes the captures, reads JSON
// traces back into captures (package jsontrace), and yields each source
// as one value, a Source, with every interpretation the command reads it
// under — layout, kernel name and family, cycle frequency and SoC, names,
// rank, device id, owner label, detailed names, the schedule's
// dependencies — and where each came from (From), each decided by one
// function of this package.
//
// It knows nothing of a command line: the command line's flag groups
// fill Options, and map an Error to an exit code (Invalid: 1, else 2).
// Notes and warnings of loading are data (Loaded.Findings, and each
// Source's Notes and Warnings), naming no program: the command line
// writes them, its own name before each line.
package input
