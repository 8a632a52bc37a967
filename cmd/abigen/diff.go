package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/megakernel/cycleabi/internal/abigen/abidiff"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
)

// runDiff is `abigen diff OLD NEW [-format text|json]`: it lists every
// change between two schemas with its rule id, category and locations, and
// exits 1 when a change is breaking and the version was not raised, 0
// otherwise, 2 on a usage error or a schema that does not load.
func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("abigen diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "report format: text or json")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: abigen diff OLD NEW [-format text|json]

Compares two ABI schemas and lists every change with a stable rule id, its
category (breaking-wire, breaking-display, compatible) and its location on
both sides. OLD and NEW are schema files, or git:REV:PATH for a committed
version (git:HEAD:abi/schema.yaml; git::PATH is the staged one).

Exit status: 1 when a change is breaking and NEW does not raise the
version, 0 otherwise, 2 on a usage error or a schema that does not load.

`)
		fs.PrintDefaults()
	}
	sources, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(sources) != 2 {
		fmt.Fprintf(stderr, "abigen diff: want OLD and NEW, got %d argument(s)\n", len(sources))
		fs.Usage()
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "abigen diff: -format %q: want text or json\n", *format)
		return 2
	}
	// Load both before giving up, so every problem is reported at once.
	var sides [2]*schema.Schema
	failed := false
	for i, src := range sources {
		s, err := abidiff.Load(src)
		if err != nil {
			fmt.Fprintln(stderr, err)
			failed = true
			continue
		}
		sides[i] = s
	}
	if failed {
		return 2
	}
	r := abidiff.NewReport(sides[0], sides[1])
	write := r.WriteText
	if *format == "json" {
		write = r.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintln(stderr, "abigen diff:", err)
		return 2
	}
	if !r.OK() {
		return 1
	}
	return 0
}

// parseInterspersed parses fs from args, allowing flags after positional
// arguments ("diff OLD NEW -format json"), and returns the positional ones.
// Everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
