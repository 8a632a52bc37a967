package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/megakernel/cycleabi/internal/outfile"
)

// DocumentWriter writes the Document of a run over any number of
// captures in bounded memory: each capture's entry is encoded when it is
// added, and the document is written by WriteTo, byte for byte as
// encoding/json writes the Document (indented by two spaces). Its "ok",
// ahead of the captures, is known only once every capture is in, so the
// entries wait encoded: in memory up to SpillBytes, then in a scratch
// file (no name on the disk; see outfile.CreateScratch) in TempDir.
type DocumentWriter struct {
	head Document
	// TempDir is where the scratch file goes ("": os.TempDir()).
	TempDir string
	n       int
	mem     bytes.Buffer
	spill   *os.File
	bw      *bufio.Writer
	err     error
}

// spillBytes is how many bytes of encoded entries a DocumentWriter keeps
// in memory before it moves them to a scratch file.
var spillBytes = 1 << 20

// NewDocumentWriter starts a document as NewDocument does.
func NewDocumentWriter(strict bool, maxFindings int) *DocumentWriter {
	return &DocumentWriter{head: *NewDocument(strict, maxFindings)}
}

// Add adds a result's entry.
func (d *DocumentWriter) Add(r *Result) { d.add(captureJSON(r)) }

// AddIOError adds the entry of a capture that could not be read.
func (d *DocumentWriter) AddIOError(file string, err error) { d.add(ioErrorJSON(file, err)) }

// entryIndent is an entry's indent inside the document's "captures".
const entryIndent = "    "

func (d *DocumentWriter) add(c CaptureJSON) {
	if !c.passes(d.head.Strict) {
		d.head.OK = false
	}
	if d.err != nil {
		return
	}
	b, err := json.MarshalIndent(&c, entryIndent, "  ")
	if err != nil {
		d.err = err
		return
	}
	var w io.Writer = &d.mem
	if d.bw != nil {
		w = d.bw
	}
	if d.n > 0 {
		io.WriteString(w, ",\n")
	}
	io.WriteString(w, entryIndent)
	if _, err := w.Write(b); err != nil {
		d.err = err
		return
	}
	d.n++
	if d.bw == nil && d.mem.Len() > spillBytes {
		if d.spill, d.err = outfile.CreateScratch(d.TempDir, ".cycleabi-validate-*"); d.err != nil {
			return
		}
		d.bw = bufio.NewWriter(d.spill)
		_, d.err = d.mem.WriteTo(d.bw)
		d.mem = bytes.Buffer{}
	}
}

// WriteTo writes the document to w.
func (d *DocumentWriter) WriteTo(w io.Writer) (int64, error) {
	if d.err != nil {
		return 0, d.err
	}
	head := d.head
	head.Captures = nil
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return 0, err
	}
	// The document ends with its captures: "captures": null}.
	const tail = "null\n}"
	if !bytes.HasSuffix(b, []byte(tail)) {
		return 0, errors.New("validate: the document does not end with its captures")
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	bw.Write(b[:len(b)-len(tail)])
	if d.n == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteString("[\n")
		if d.spill != nil {
			if err := d.bw.Flush(); err != nil {
				return cw.n, err
			}
			if _, err := d.spill.Seek(0, io.SeekStart); err != nil {
				return cw.n, err
			}
			if _, err := bw.ReadFrom(d.spill); err != nil {
				return cw.n, err
			}
		} else {
			bw.Write(d.mem.Bytes())
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	err = bw.Flush()
	return cw.n, err
}

// Close releases the scratch file, if any.
func (d *DocumentWriter) Close() {
	outfile.CloseScratch(d.spill)
	d.spill, d.bw = nil, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
