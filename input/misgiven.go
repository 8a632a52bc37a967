package input

import (
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/sniff"
)

// Misgiven says what the file at path is when it is another of the inputs
// cycleabi reads than the one flag (--names or --plan) takes: a schedule
// given as --names, a names file as --plan (each parses as the other), a
// JSON trace or binary data (a capture?) as either. "" when it cannot
// tell: the parser's own error says what is wrong with the file then.
func Misgiven(path, flag string) string {
	r, err := sniff.File(path)
	if err != nil {
		return ""
	}
	switch {
	case r.Kind == sniff.JSON && r.Trace:
		return "it is a JSON trace, which commands take as an argument"
	case r.Kind == sniff.Capture || r.Kind == sniff.NPY:
		return "it is binary data (a capture?), which commands take as an argument"
	case r.Kind != sniff.JSON && r.Kind != sniff.YAML && r.Kind != sniff.Text:
		return ""
	}
	switch flag {
	case "--names":
		if _, err := plan.ParseFile(path); err == nil {
			return "it is a schedule: give it with --plan"
		}
	case "--plan":
		if _, err := kernelnames.Load(path); err == nil {
			return "it is a names file: give it with --names"
		}
	}
	return ""
}
