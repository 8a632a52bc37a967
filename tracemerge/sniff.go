package tracemerge

import (
	"bytes"
	"fmt"

	"github.com/megakernel/cycleabi/sniff"
)

// sniffJSON checks that the file at path starts like JSON (after gzip,
// a byte-order mark and whitespace: package sniff, the module's one
// sniffer, says what it is) and otherwise names what it is: a capture, a
// Perfetto trace, an image, an archive, so that a file given in the wrong
// place gets an error naming it, not a JSON syntax error at byte 0. what
// is the role the file was given as ("a framework trace").
func sniffJSON(path, what string) error {
	f, err := openFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := sniff.Reader(f, -1)
	if err != nil {
		return err
	}
	if s.Kind == sniff.JSON {
		return nil
	}
	if s.Kind == sniff.Gzip && !s.InGzip {
		return &InputError{File: path, Msg: fmt.Sprintf("%s, not %s", s.What, what)}
	}
	gz := ""
	if s.InGzip {
		gz = "gzip holding "
	}
	return &InputError{File: path, Msg: fmt.Sprintf("this is %s%s, not %s (a Chrome JSON trace: %s)", gz, kindPhrase(s), what, expectedJSON(what))}
}

func expectedJSON(what string) string {
	if what == "a MegaKernel trace" {
		return "what cycleabi decode writes with --format json, the default"
	}
	return "torch profiler / Kineto, or CANN msprof's trace.json"
}

// kindPhrase names what s is for merge, which reads JSON traces: the
// sniffer's phrase, with merge's hint where a file is given for a trace
// by mistake.
func kindPhrase(s sniff.Result) string {
	switch s.Kind {
	case sniff.Empty:
		return "an empty file"
	case sniff.NPY:
		return "a NumPy .npy file (a capture? cycleabi decode turns it into a trace)"
	case sniff.Zip:
		return "a zip archive (torch.save? a capture is saved with numpy().tofile or np.save)"
	case sniff.Perfetto:
		return "a Perfetto protobuf trace (.pftrace; merge reads JSON traces: decode with --format json)"
	case sniff.Capture:
		return "binary data (a raw capture? cycleabi decode turns it into a trace)"
	case sniff.Text, sniff.YAML:
		if len(bytes.TrimSpace(s.Start)) == 0 {
			return s.What
		}
		return fmt.Sprintf("text that is not JSON (it starts %q)", firstLine(s.Start))
	}
	return s.What
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}
