package pq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// magic starts and ends a Parquet file.
const magic = "PAR1"

// Writer writes a Parquet file of one schema: its row groups as they are
// appended, then its footer at Close.
type Writer struct {
	w         io.Writer
	s         *Schema
	createdBy string
	meta      [][2]string
	pos       int64 // bytes written
	groups    []placed
	rows      int64
	own       *Encoder // for Write
	group     RowGroup
	err       error
}

// placed is an appended row group's footer entry: its chunks at their
// offsets in the file.
type placed struct {
	rows   int64
	at     int64
	chunks []chunk
}

// NewWriter returns a writer of a file of schema s to w; createdBy names
// the writing program (the footer's created_by), meta is the file's
// key-value metadata in order.
func NewWriter(w io.Writer, s *Schema, createdBy string, meta ...[2]string) *Writer {
	return &Writer{w: w, s: s, createdBy: createdBy, meta: meta}
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.pos == 0 {
		if _, w.err = io.WriteString(w.w, magic); w.err != nil {
			return w.err
		}
		w.pos = int64(len(magic))
	}
	if _, w.err = w.w.Write(b); w.err == nil {
		w.pos += int64(len(b))
	}
	return w.err
}

// Append appends an encoded row group (of this writer's schema); a group
// of no rows is left out.
func (w *Writer) Append(g *RowGroup) error {
	if g.rows == 0 {
		return w.err
	}
	if len(g.chunks) != len(w.s.leaves) {
		return fmt.Errorf("pq: a row group of %d columns for %s's %d", len(g.chunks), w.s.name, len(w.s.leaves))
	}
	at := max(w.pos, int64(len(magic)))
	if err := w.write(g.Bytes); err != nil {
		return err
	}
	chunks := make([]chunk, len(g.chunks))
	for i, c := range g.chunks {
		c.dataOffset += at
		if c.dictOffset >= 0 {
			c.dictOffset += at
		}
		chunks[i] = c
	}
	w.groups = append(w.groups, placed{rows: g.rows, at: at, chunks: chunks})
	w.rows += g.rows
	return nil
}

// Write encodes a row group of rows rows (see Encoder.Encode) and appends
// it.
func (w *Writer) Write(data []Data, rows int) error {
	if w.err != nil {
		return w.err
	}
	if w.own == nil {
		w.own = NewEncoder()
	}
	if err := w.own.Encode(w.s, data, rows, &w.group); err != nil {
		return err
	}
	return w.Append(&w.group)
}

// Close writes the footer. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	t := thrift{b: []byte{}}
	w.footer(&t)
	if len(t.b) > math.MaxUint32 {
		return errors.New("pq: a footer over 4 GiB")
	}
	t.b = binary.LittleEndian.AppendUint32(t.b, uint32(len(t.b)))
	t.b = append(t.b, magic...)
	if err := w.write(t.b); err != nil {
		return err
	}
	w.err = errors.New("pq: the writer is closed")
	return nil
}

// footer appends the FileMetaData.
func (w *Writer) footer(t *thrift) {
	t.i32(1, 2) // version
	w.s.appendSchema(t)
	t.i64(3, w.rows)
	t.list(4, tStruct, len(w.groups))
	for i, g := range w.groups {
		t.enter()
		t.list(1, tStruct, len(g.chunks))
		var unc, comp int64
		for k, c := range g.chunks {
			unc += c.uncompressed
			comp += c.compressed
			w.columnChunk(t, &w.s.leaves[k], &c)
		}
		t.i64(2, unc)
		t.i64(3, g.rows)
		t.i64(5, g.at)
		t.i64(6, comp)
		if i <= math.MaxInt16 {
			t.field(7, 4) // i16
			t.b = binary.AppendUvarint(t.b, zigzag(int64(i)))
		}
		t.end()
	}
	if len(w.meta) > 0 {
		t.list(5, tStruct, len(w.meta))
		for _, kv := range w.meta {
			t.enter()
			t.str(1, kv[0])
			t.str(2, kv[1])
			t.end()
		}
	}
	t.str(6, w.createdBy)
	// Every column's statistics are in its type's order (TypeDefinedOrder),
	// which is what makes min_value and max_value readable.
	t.list(7, tStruct, len(w.s.leaves))
	for range w.s.leaves {
		t.enter()
		t.begin(1)
		t.end()
		t.end()
	}
	t.b = append(t.b, 0)
}

// columnChunk appends a ColumnChunk with its ColumnMetaData.
func (w *Writer) columnChunk(t *thrift, l *leaf, c *chunk) {
	t.enter()
	// file_offset: where the chunk's first page starts, as parquet-mr
	// writes it (the format deprecates the field, but it is required, and
	// readers built on parquet-mr place chunks by it).
	start := c.dataOffset
	if c.dictOffset >= 0 {
		start = c.dictOffset
	}
	t.i64(2, start)
	t.begin(3)
	t.i32(1, physical(l.col))
	t.list(2, tI32, len(c.encodings))
	for _, e := range c.encodings {
		t.elemI32(e)
	}
	t.list(3, tBinary, len(l.path))
	for _, p := range l.path {
		t.elemStr(p)
	}
	t.i32(4, c.codec)
	t.i64(5, c.values)
	t.i64(6, c.uncompressed)
	t.i64(7, c.compressed)
	t.i64(9, c.dataOffset)
	if c.dictOffset >= 0 {
		t.i64(11, c.dictOffset)
	}
	t.begin(12)
	t.i64(3, c.nulls)
	if c.bounded {
		t.binary(5, c.max)
		t.binary(6, c.min)
	}
	t.end()
	t.end()
	t.end()
}
