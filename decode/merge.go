package decode

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/outfile"
)

// Bounds of the records read per slot at once: windowBudget bytes of
// decoded records over all slots (half of it the windows being merged,
// half the next windows being read ahead), each window at least minWindow
// and at most maxWindow records.
const (
	windowBudget = 4 << 20
	minWindow    = 32
	maxWindow    = 512
)

// Records calls yield with every live record in trace order:
// (start_cycle, core_type, block_id), ties in slot and record order, as a
// stable sort of all records would give. It stops early when yield returns
// false. Each call walks the capture afresh; an error is a failure to read
// it (the first pass has already checked its contents).
func (d *Decoded) Records(yield func(Record) bool) error {
	m, err := d.newMerge()
	if err != nil {
		return err
	}
	defer m.close()
	var buf [walkBatch]Record
	for {
		recs, err := m.next(buf[:0])
		for i := range recs {
			if !yield(recs[i]) {
				return nil
			}
		}
		if err != nil || len(recs) < walkBatch {
			return err
		}
	}
}

// walkBatch is the records Records takes from the merge at once.
const walkBatch = 64

// next appends the next records in trace order to dst, up to its
// capacity; fewer only when the merge is exhausted or fails to read.
func (m *merge) next(dst []Record) ([]Record, error) {
	t := m.tree
	if len(t) == 0 {
		return dst, nil
	}
	w := t[0]
	for w.src < exhausted && len(dst) < cap(dst) {
		s := m.srcs[w.src]
		i := s.pos
		dst = append(dst, Record{ProfileRecord: s.recs[i], Active: s.active, CoreType: s.coreType, BlockID: s.blockID, EntryCycle: s.entry})
		if s.index != nil {
			dst[len(dst)-1].Index = int(s.index[i])
		} else {
			dst[len(dst)-1].Index = s.base + s.first + i
		}
		s.pos++
		switch {
		case s.pos < len(s.recs):
			w.start = s.recs[s.pos].StartCycle
		case s.first+len(s.recs) == s.count:
			// Exhausted: it loses every match from now on.
			w.start, w.src = math.MaxUint64, w.src|exhausted
		default:
			if err := m.advance(s); err != nil {
				t[0] = w
				return dst, err
			}
			w.start = s.recs[0].StartCycle
		}
		// Replay the source's matches on its way to the root: at each
		// node the loser stays, the winner goes on.
		for n := (int(w.src&^exhausted) + len(t)) >> 1; n > 0; n >>= 1 {
			w, t[n] = play(w, t[n])
		}
		t[0] = w
	}
	return dst, nil
}

// A source is a run of one slot's records in start order, seen through a
// window of consecutive records: a whole slot read from the capture, or a
// sorted run of an out-of-order slot.
type source struct {
	key  uint64 // core_type<<32 | block_id: trace order among equal starts
	base int    // index in the slot of the run's first record: order among a slot's runs

	recs  []abi.ProfileRecord // the window
	index []uint32            // the window's record indices in the slot; nil when recs are in slot order
	pos   int                 // the head record's place in the window
	first int                 // the window's first position in the source
	count int                 // records in the source (the run)

	active   int
	slot     abi.Slot
	coreType abi.CoreType
	blockID  uint32
	entry    uint64

	kind    sourceKind
	spillAt int64 // file offset of the source in the spill file

	// The next window, read ahead by the merge's reader goroutine
	// (prefetch): spare and spareIndex hold it once ready has its
	// result; next is its first position in the source.
	spare      []abi.ProfileRecord
	spareIndex []uint32
	next       int
	ready      chan error
}

type sourceKind uint8

const (
	fromCapture sourceKind = iota // records in start order, read from the capture
	fromMemory                    // a sorted run held in memory: the whole source is the window
	fromSpill                     // a sorted run in the spill file
)

// A node of the merge's loser tree: a source (by rank) and the start
// cycle of its head record, held in the tree itself so that comparing two
// reads no source. The rank orders the sources by (core_type, block_id),
// runs of one slot in slot order: trace order among equal start cycles.
// An exhausted source keeps its rank with the exhausted bit set, which
// puts it after every source that is not.
type node struct {
	start uint64
	src   uint32 // the source's rank: its index in merge.srcs
}

// exhausted marks a node whose source has no records left.
const exhausted = 1 << 31

// less is the trace order of two nodes: (start_cycle, rank).
func less(a, b node) bool {
	return a.start < b.start || a.start == b.start && a.src < b.src
}

// play returns the winner and the loser of a match, by less, without a
// branch: which of two sources wins a match is close to a coin toss, and
// a mispredicted branch at each level of the tree cost more than the
// arithmetic. (start, src) is compared as one 96-bit number: the borrow
// of a.src - b.src feeds a.start - b.start, whose borrow is a < b.
func play(a, b node) (winner, loser node) {
	_, borrow := bits.Sub64(uint64(a.src), uint64(b.src), 0)
	_, borrow = bits.Sub64(a.start, b.start, borrow)
	m := -borrow // all ones when a < b: then winner is b^a^b, loser a^a^b
	ds, dr := (a.start^b.start)&m, (a.src^b.src)&uint32(m)
	return node{b.start ^ ds, b.src ^ dr}, node{a.start ^ ds, a.src ^ dr}
}

// The merge is a loser tree (a tournament) over the sources: with k
// sources, tree[1:k] are the matches, each holding the loser, with the
// sources as the leaves k..2k-1 beneath them (node n's children are 2n and
// 2n+1), and tree[0] is the overall winner, the source of the next record.
// Taking a record replays only its source's path to the root: log2(k)
// comparisons, one per level, where a binary heap makes two per level
// (measured in docs/performance.md).
type merge struct {
	d       *Decoded
	srcs    []*source // by rank
	tree    []node
	window  int
	scratch []byte   // bytes read from a file before decoding
	spill   *os.File // sorted runs of out-of-order slots

	// reads go to the reader goroutine (started by the first prefetch),
	// which closes readerDone when reads is closed.
	reads      chan *source
	readerDone chan struct{}
}

// An out-of-order slot is cut into runs of runRecords records (2.25 MiB
// of records and indices, held per capture being rendered), each sorted
// and, but for the last, spilled to a file; the runs are merged with the
// other sources. Memory is O(run + sources): with more than
// maxRuns×runRecords out-of-order records in a capture (8 GiB of them),
// the runs grow instead of their number, so the read windows of the
// sources stay within maxRuns×64 records. Runs of 2^16 records sorted the
// 16M-record worst case faster than runs of 2^18, in 6 MiB less.
const (
	runRecords = 1 << 16
	maxRuns    = 4096
)

// runLength is the length of the runs that sort outOfOrder records: at
// most maxRuns runs, each at least runRecords long.
func runLength(outOfOrder int) int {
	return max(runRecords, (outOfOrder+maxRuns-1)/maxRuns)
}

func (d *Decoded) newMerge() (*merge, error) {
	run := d.runRecords
	if run <= 0 {
		outOfOrder := 0
		for _, a := range d.Summary.Active {
			if !a.Sorted {
				outOfOrder += a.Count
			}
		}
		run = runLength(outOfOrder)
	}
	var sources []*source
	var unsorted []*source
	for i, a := range d.Summary.Active {
		s := source{key: uint64(a.Slot.CoreType)<<32 | uint64(a.Slot.BlockID), count: a.Count, active: i,
			slot: a.Slot, coreType: a.Slot.CoreType, blockID: a.Slot.BlockID, entry: a.EntryCycle}
		if a.Sorted {
			sources = append(sources, &s)
			continue
		}
		for base := 0; base < a.Count; base += run {
			r := s
			r.base, r.count = base, min(run, a.Count-base)
			sources = append(sources, &r)
			unsorted = append(unsorted, &r)
		}
	}
	m := &merge{d: d, window: d.chunk}
	if m.window <= 0 {
		m.window = min(max(windowBudget/2/abi.ProfileRecordSize/max(len(sources), 1), minWindow), maxWindow)
	}
	if err := m.sortRuns(unsorted); err != nil {
		m.close()
		return nil, err
	}
	// Ranks: sources by (core_type, block_id), a slot's runs in order.
	slices.SortStableFunc(sources, func(a, b *source) int { return cmp.Compare(a.key, b.key) })
	m.srcs = sources
	k := len(m.srcs)
	// The matches are played bottom-up: winners[n] is the winner at
	// node n (the leaves first), the loser stays in the tree.
	winners := make([]node, 2*k)
	for r, s := range m.srcs {
		if s.kind != fromMemory {
			if err := m.fill(s, 0); err != nil {
				m.close()
				return nil, err
			}
		}
		winners[k+r] = node{start: s.recs[0].StartCycle, src: uint32(r)}
		m.prefetch(s)
	}
	m.tree = make([]node, k)
	for n := k - 1; n >= 1; n-- {
		a, b := winners[2*n], winners[2*n+1]
		if less(b, a) {
			a, b = b, a
		}
		winners[n], m.tree[n] = a, b
	}
	if k > 0 {
		m.tree[0] = winners[1]
	}
	return m, nil
}

// fill loads the window of s that starts at source position first.
func (m *merge) fill(s *source, first int) error {
	var err error
	s.recs, s.index, m.scratch, err = m.read(s, first, s.recs, s.index, m.scratch)
	s.pos, s.first = 0, first
	return err
}

// prefetch has the reader goroutine read the window of s after the
// current one, if there is one, while the merge goes on: reading and
// decoding records then costs the merge (the one goroutine every record
// goes through) nothing but a swap.
func (m *merge) prefetch(s *source) {
	next := s.first + len(s.recs)
	if s.kind == fromMemory || next == s.count {
		return
	}
	if m.reads == nil {
		// Never full: a source has at most one read pending.
		m.reads = make(chan *source, len(m.srcs))
		m.readerDone = make(chan struct{})
		go m.reader()
	}
	if s.ready == nil {
		s.ready = make(chan error, 1)
	}
	s.next = next
	m.reads <- s
}

// reader reads the windows asked for by prefetch, in its own scratch
// buffer.
func (m *merge) reader() {
	defer close(m.readerDone)
	var scratch []byte
	for s := range m.reads {
		var err error
		s.spare, s.spareIndex, scratch, err = m.read(s, s.next, s.spare, s.spareIndex, scratch)
		s.ready <- err
	}
}

// advance makes the window read ahead for s current and reads ahead the
// one after it.
func (m *merge) advance(s *source) error {
	if s.ready == nil {
		return m.fill(s, s.first+len(s.recs))
	}
	err := <-s.ready
	s.recs, s.spare = s.spare, s.recs
	s.index, s.spareIndex = s.spareIndex, s.index
	s.pos, s.first = 0, s.next
	if err != nil {
		return err
	}
	m.prefetch(s)
	return nil
}

// read reads the window of s that starts at source position first into
// recs and index (made larger when they are too small: the first window
// of a source is its largest), through scratch, and returns them.
func (m *merge) read(s *source, first int, recs []abi.ProfileRecord, index []uint32, scratch []byte) ([]abi.ProfileRecord, []uint32, []byte, error) {
	n := min(m.window, s.count-first)
	if cap(recs) < n {
		recs = make([]abi.ProfileRecord, n)
	}
	recs = recs[:n]
	switch s.kind {
	case fromCapture:
		var err error
		scratch, err = m.d.Capture.ReadRecords(s.slot, s.base+first, recs, scratch)
		return recs, index, scratch, err
	case fromSpill:
		if cap(index) < n {
			index = make([]uint32, n)
		}
		index = index[:n]
		size := n * spillRecordSize
		if cap(scratch) < size {
			scratch = make([]byte, size)
		}
		b := scratch[:size]
		if _, err := m.spill.ReadAt(b, s.spillAt+int64(first)*spillRecordSize); err != nil {
			return recs, index, scratch, fmt.Errorf("reading back sorted %s: %w", s.slot, err)
		}
		for i := range n {
			e := b[i*spillRecordSize:]
			recs[i], _ = abi.DecodeProfileRecord(e)
			index[i] = binary.LittleEndian.Uint32(e[abi.ProfileRecordSize:])
		}
		return recs, index, scratch, nil
	}
	return recs, index, scratch, fmt.Errorf("%s: no more records in memory", s.slot)
}

// spillRecordSize is a record on the wire followed by its u32 index in the slot.
const spillRecordSize = abi.ProfileRecordSize + 4

// sortRuns sorts each run of an out-of-order slot by start cycle, ties in
// record order (a stable sort), one at a time in one buffer. The last run
// stays in that buffer and is merged from memory; the others are written
// to a spill file (in TempDir, which has no name: see
// outfile.CreateScratch) that the merge reads back in windows.
func (m *merge) sortRuns(runs []*source) error {
	if len(runs) == 0 {
		return nil
	}
	largest := 0
	for _, s := range runs {
		largest = max(largest, s.count)
	}
	// The counts were checked against the bytes present by the scan, and
	// a run is at most runRecords long (or 1/maxRuns of the out-of-order
	// records present).
	recs := make([]abi.ProfileRecord, largest)
	perm := make([]uint32, largest)
	last := runs[len(runs)-1]
	var w *bufio.Writer
	if len(runs) > 1 {
		f, err := outfile.CreateScratch(m.d.TempDir, "cycleabi-sorted-*")
		if err != nil {
			return fmt.Errorf("sorting out-of-order slots: %w", err)
		}
		m.spill = f
		w = bufio.NewWriterSize(f, 64<<10)
	}
	var off int64
	var e [spillRecordSize]byte
	for _, s := range runs {
		if err := m.sortRun(s, recs, perm); err != nil {
			return err
		}
		if s == last {
			s.kind, s.recs, s.index, s.first = fromMemory, recs[:s.count], perm[:s.count], 0
			break
		}
		s.kind, s.spillAt = fromSpill, off
		for i := range s.count {
			recs[i].Append(e[:0])
			binary.LittleEndian.PutUint32(e[abi.ProfileRecordSize:], perm[i])
			if _, err := w.Write(e[:]); err != nil {
				return fmt.Errorf("writing sorted records of %s to a spill file in %s: %w", s.slot, m.tempDir(), err)
			}
		}
		off += int64(s.count) * spillRecordSize
	}
	if w != nil {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("writing sorted records to a spill file in %s: %w", m.tempDir(), err)
		}
	}
	return nil
}

// tempDir is where spill files go, for messages.
func (m *merge) tempDir() string {
	if m.d.TempDir != "" {
		return m.d.TempDir
	}
	return os.TempDir()
}

// sortRun reads the records of run s into recs and sorts them by start
// cycle, ties in record order; perm receives each sorted record's index in
// the slot.
func (m *merge) sortRun(s *source, recs []abi.ProfileRecord, perm []uint32) error {
	recs, perm = recs[:s.count], perm[:s.count]
	for first := 0; first < s.count; first += maxWindow {
		n := min(maxWindow, s.count-first)
		var err error
		if m.scratch, err = m.d.Capture.ReadRecords(s.slot, s.base+first, recs[first:first+n], m.scratch); err != nil {
			return err
		}
	}
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int {
		if c := cmp.Compare(recs[a].StartCycle, recs[b].StartCycle); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	permuteInPlace(recs, perm)
	for i := range perm {
		perm[i] += uint32(s.base)
	}
	return nil
}

// permuteInPlace rearranges recs so that the new recs[i] is the old
// recs[perm[i]], following the permutation's cycles; perm is unchanged.
func permuteInPlace(recs []abi.ProfileRecord, perm []uint32) {
	done := make([]uint64, (len(recs)+63)/64)
	for start := range recs {
		if done[start/64]&(1<<(start%64)) != 0 {
			continue
		}
		tmp := recs[start]
		i := start
		for {
			done[i/64] |= 1 << (i % 64)
			j := int(perm[i])
			if j == start {
				recs[i] = tmp
				break
			}
			recs[i] = recs[j]
			i = j
		}
	}
}

func (m *merge) close() {
	if m.reads != nil {
		// The reader finishes the reads asked for, then stops.
		close(m.reads)
		<-m.readerDone
		m.reads = nil
	}
	outfile.CloseScratch(m.spill)
	m.spill = nil
}
