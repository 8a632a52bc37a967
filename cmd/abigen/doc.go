package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/megakernel/cycleabi/internal/abigen/docgen"
)

// runDoc is `abigen doc [-schema abi/schema.yaml] [-out gen/doc]`: it
// renders the ABI reference and writes OUT/ABI.md through a temporary file
// renamed into place. Exit 1 on a schema or write error, 2 on a usage error.
func runDoc(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("abigen doc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := defaultOutputs()
	schemaPath := fs.String("schema", o.schema, "the ABI schema to document")
	out := fs.String("out", o.docOut, "folder of the generated ABI reference")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: abigen doc [-schema FILE] [-out DIR]\n\nWrites DIR/%s, the ABI reference, from the schema.\n\n", docgen.File)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "abigen doc: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	// The reference names the schema by its path in the module, as the
	// other generated files do, whatever the working directory.
	s, err := load(*schemaPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	rendered, err := docgen.Generate(s)
	if err != nil {
		fmt.Fprintln(stderr, "abigen doc:", err)
		return 1
	}
	files := map[string][]byte{}
	for rel, data := range rendered {
		files[filepath.Join(*out, filepath.FromSlash(rel))] = data
	}
	if err := writeFiles(files, []string{*out}, *schemaPath); err != nil {
		fmt.Fprintln(stderr, "abigen doc:", err)
		return writeStatus(err)
	}
	return 0
}
