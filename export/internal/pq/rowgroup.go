package pq

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Data is one leaf column's values in a row group, in the leaf order of
// the schema (a map's key, then its value).
type Data struct {
	// Ints are an Int column's values, each its two's complement in 64
	// bits (uint64(int64(v)) for a signed v); a value must fit the
	// column's Bits.
	Ints    []uint64
	Doubles []float64
	// Strings are a String column's values or, when Index is set, a
	// dictionary the values index (Dict columns only).
	Strings []string
	Index   []uint32
	// Def holds a definition level per entry: 1 for a value, 0 for a
	// null (an optional column) or an empty map; nil when every entry
	// holds a value. Rep holds a map's repetition levels: 0 for a row's
	// first entry, 1 for the others.
	Def, Rep []uint8
}

// RowGroup is a row group encoded apart from its file: its column
// chunks' bytes, and what the file's footer says of them, at offsets from
// the start of Bytes.
type RowGroup struct {
	Bytes  []byte
	rows   int64
	chunks []chunk
}

// chunk is what the footer says of a column chunk.
type chunk struct {
	encodings                []int32
	codec                    int32
	values                   int64
	uncompressed, compressed int64
	dataOffset, dictOffset   int64 // dictOffset < 0: none
	nulls                    int64
	min, max                 []byte
	bounded                  bool
}

// Parquet's page types, encodings and codecs (parquet.thrift).
const (
	pageData       = 0
	pageDictionary = 2

	encPlain          = 0
	encRLE            = 3
	encDeltaBinary    = 5
	encRLEDictionary  = 8
	codecUncompressed = 0
	codecZstd         = 6
)

// Encoder encodes row groups; it keeps its buffers from one to the next.
// An Encoder is used by one goroutine at a time.
type Encoder struct {
	zstd    *zstd.Encoder
	body    []byte // a page before compression
	levels  []uint32
	idx     []uint32
	scratch []uint64
	// Dictionaries: dense for integers below denseLimit, by map above.
	dense   []uint32 // index+1, 0 for none
	touched []uint64
	dictInt map[uint64]uint32
	dictStr map[string]uint32
	remap   []uint32 // an indexed column's dictionary entries' new indexes, +1
	dict    []byte   // a dictionary page before compression
	packed  []byte   // a compressed page
}

// denseLimit bounds the integers a dictionary finds by a table, not a map.
const denseLimit = 1 << 12

// NewEncoder returns an encoder; zstd pages are compressed at zstd's
// fastest level, on the calling goroutine.
func NewEncoder() *Encoder {
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
	if err != nil {
		panic(err) // only for invalid options
	}
	return &Encoder{zstd: z, dense: make([]uint32, denseLimit), dictInt: map[uint64]uint32{}, dictStr: map[string]uint32{}}
}

// Encode encodes a row group of rows rows, data holding a Data per leaf
// column of s, into g (its Bytes reused).
func (e *Encoder) Encode(s *Schema, data []Data, rows int, g *RowGroup) error {
	if len(data) != len(s.leaves) {
		return fmt.Errorf("pq: %d columns of data for the %d of %s", len(data), len(s.leaves), s.name)
	}
	g.Bytes, g.chunks, g.rows = g.Bytes[:0], g.chunks[:0], int64(rows)
	for i := range s.leaves {
		c, err := e.chunk(&s.leaves[i], &data[i], rows, g)
		if err != nil {
			return fmt.Errorf("pq: column %s: %w", strings.Join(s.leaves[i].path, "."), err)
		}
		g.chunks = append(g.chunks, c)
	}
	return nil
}

// chunk encodes one column chunk: a dictionary page if the column has
// one, then one data page. Its offsets are from the start of g.Bytes.
func (e *Encoder) chunk(l *leaf, d *Data, rows int, g *RowGroup) (chunk, error) {
	entries, present, err := l.entries(d, rows)
	if err != nil {
		return chunk{}, err
	}
	if err := l.checkValues(d, present); err != nil {
		return chunk{}, err
	}
	c := chunk{codec: codecUncompressed, values: int64(entries), nulls: int64(entries - present), dictOffset: -1}
	if l.col.Compress {
		c.codec = codecZstd
	}
	enc := l.col.Encoding
	if present == 0 {
		enc = Plain // nothing to build a dictionary or deltas of
	}
	var idx []uint32
	var dictSize int
	if enc == Dict {
		var dict []byte
		dict, dictSize, idx = e.dictionary(l.col, d)
		c.dictOffset = int64(len(g.Bytes))
		if err := e.page(g, &c, dict, pageDictionary, dictSize, encPlain); err != nil {
			return chunk{}, err
		}
	}
	if l.col.Bounds && present > 0 {
		c.min, c.max, c.bounded = e.bounds(l.col, d)
	}
	body := e.body[:0]
	if l.maxRep > 0 {
		body = appendLevels(body, e.levelsOf(d.Rep, entries), 1, &e.scratch)
	}
	if l.maxDef > 0 {
		body = appendLevels(body, e.levelsOf(d.Def, entries), 1, &e.scratch)
	}
	var valueEnc int32
	switch enc {
	case Dict:
		w := uint(max(1, bits.Len(uint(dictSize-1))))
		body = append(body, byte(w))
		body = appendHybrid(body, idx, w, &e.scratch)
		valueEnc = encRLEDictionary
	case Delta:
		body = appendDelta(body, d.Ints, uint(8*physicalSize(l.col)), &e.scratch)
		valueEnc = encDeltaBinary
	default:
		body = appendPlain(body, l.col, d)
		valueEnc = encPlain
	}
	e.body = body
	c.dataOffset = int64(len(g.Bytes))
	if err := e.page(g, &c, body, pageData, entries, valueEnc); err != nil {
		return chunk{}, err
	}
	c.encodings = append(c.encodings, valueEnc)
	if l.maxDef > 0 || l.maxRep > 0 {
		c.encodings = append(c.encodings, encRLE)
	}
	if enc == Dict {
		c.encodings = append(c.encodings, encPlain)
	}
	slices.Sort(c.encodings)
	return c, nil
}

// page appends a page of body (compressed when the column is) with its
// header to g, and adds its sizes to c's.
func (e *Encoder) page(g *RowGroup, c *chunk, body []byte, typ int32, values int, enc int32) error {
	at := len(g.Bytes)
	packed := body
	if c.codec == codecZstd {
		e.packed = e.zstd.EncodeAll(body, e.packed[:0])
		packed = e.packed
	}
	if !fitsI32(len(body)) || !fitsI32(len(packed)) || !fitsI32(values) {
		return fmt.Errorf("a page of %d bytes and %d values, more than Parquet's 2^31-1", len(body), values)
	}
	t := thrift{b: g.Bytes}
	t.i32(1, typ)
	t.i32(2, int32(len(body)))
	t.i32(3, int32(len(packed)))
	if typ == pageDictionary {
		t.begin(7)
		t.i32(1, int32(values))
		t.i32(2, enc)
		t.end()
	} else {
		t.begin(5)
		t.i32(1, int32(values))
		t.i32(2, enc)
		t.i32(3, encRLE)
		t.i32(4, encRLE)
		t.end()
	}
	t.b = append(t.b, 0)
	header := len(t.b) - at
	g.Bytes = append(t.b, packed...)
	c.uncompressed += int64(header + len(body))
	c.compressed += int64(header + len(packed))
	return nil
}
