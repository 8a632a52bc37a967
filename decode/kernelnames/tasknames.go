package kernelnames

import (
	"iter"
	"slices"
	"sort"
)

// TaskNames maps task ids to the names of their stages, in a table of a
// few bytes a task rather than a map's ~40: a names file lists every task
// of a graph (a 10M-task file is 139 MB of YAML), but names only a few
// dozen stages. Ids that are dense (the usual 0..N-1, in any order) are
// held in a table indexed by id, 4 bytes an id (at most 2 ids a task
// plus 1024, so at most 8 bytes a task), in pages of 64Ki ids so that
// growing it never copies it (a slice grown by append holds the old and
// the new array at once); sparse ids in a sorted list of (id, name)
// pairs, 8 bytes a task (16 while it grows), searched by halving. The
// names themselves are held once each.
//
// The zero TaskNames names no task.
type TaskNames struct {
	names []string // the distinct names, in the order first met
	// dense holds, by task id, 1 + the index in names (0 for none), in
	// pages of 1<<pageBits ids (nil: none in the page), for ids below
	// denseLen; nil when pairs holds the table.
	dense    [][]uint32
	denseLen int64
	pairs    []uint64 // sorted: task id << 32 | index in names
	n        int
	// index finds a name's index while the table is built.
	index map[string]uint32
}

// TaskNamesOf returns the table of m.
func TaskNamesOf(m map[uint32]string) TaskNames {
	var t TaskNames
	ids := make([]uint32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.add(id, m[id])
	}
	t.finish()
	return t
}

// With returns t with the task stages of extra added for the tasks t
// does not name (t's own names win), and whether it added any; t itself
// when none is added (nothing is copied then).
func (t *TaskNames) With(extra map[uint32]string) (TaskNames, bool) {
	var missing []uint32
	for id := range extra {
		if t.Index(id) < 0 {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return *t, false
	}
	m := make(map[uint32]string, t.n+len(missing))
	for id, name := range t.All() {
		m[id] = name
	}
	for _, id := range missing {
		m[id] = extra[id]
	}
	return TaskNamesOf(m), true
}

// Len returns the number of tasks named.
func (t *TaskNames) Len() int { return t.n }

// Lookup returns the name of task id's stage.
func (t *TaskNames) Lookup(id uint32) (string, bool) {
	if i := t.Index(id); i >= 0 {
		return t.names[i], true
	}
	return "", false
}

// Distinct returns the distinct names, in the order first met: Index
// indexes it. A writer escapes each once there rather than at every event.
func (t *TaskNames) Distinct() []string { return t.names }

// Index returns the index in Distinct of task id's name, or -1.
func (t *TaskNames) Index(id uint32) int {
	if t.pairs == nil {
		if int64(id) < t.denseLen {
			if page := t.dense[id>>pageBits]; page != nil {
				return int(page[id&pageMask]) - 1
			}
		}
		return -1
	}
	i := sort.Search(len(t.pairs), func(i int) bool { return uint32(t.pairs[i]>>32) >= id })
	if i < len(t.pairs) && uint32(t.pairs[i]>>32) == id {
		return int(uint32(t.pairs[i]))
	}
	return -1
}

// All yields every task id and its name, in ascending id order.
func (t *TaskNames) All() iter.Seq2[uint32, string] {
	return func(yield func(uint32, string) bool) {
		if t.pairs == nil {
			for p, page := range t.dense {
				for j, i := range page {
					if i != 0 && !yield(uint32(p<<pageBits|j), t.names[i-1]) {
						return
					}
				}
			}
			return
		}
		for _, p := range t.pairs {
			if !yield(uint32(p>>32), t.names[uint32(p)]) {
				return
			}
		}
	}
}

// add names task id; it reports false when id was already named (in the
// dense table; a sparse table finds duplicates in finish).
func (t *TaskNames) add(id uint32, name string) bool {
	ni, ok := t.index[name]
	if !ok {
		ni = t.newName(name)
	}
	return t.addIndex(id, ni)
}

// addBytes is add for a name not yet a string: only a name not met
// before is copied.
func (t *TaskNames) addBytes(id uint32, name []byte) bool {
	ni, ok := t.index[string(name)]
	if !ok {
		ni = t.newName(string(name))
	}
	return t.addIndex(id, ni)
}

func (t *TaskNames) newName(name string) uint32 {
	if t.index == nil {
		t.index = map[string]uint32{}
	}
	ni := uint32(len(t.names))
	t.names = append(t.names, name)
	t.index[name] = ni
	return ni
}

// The dense table's pages.
const (
	pageBits = 16
	pageMask = 1<<pageBits - 1
)

func (t *TaskNames) addIndex(id, ni uint32) bool {
	t.n++
	if t.pairs == nil {
		if int64(id) >= t.denseLen && uint64(id) < 2*uint64(t.n)+1024 {
			t.denseLen = int64(id) + 1
			for int64(len(t.dense))<<pageBits < t.denseLen {
				t.dense = append(t.dense, nil)
			}
		}
		if int64(id) < t.denseLen {
			page := t.dense[id>>pageBits]
			if page == nil {
				page = make([]uint32, 1<<pageBits)
				t.dense[id>>pageBits] = page
			}
			if page[id&pageMask] != 0 {
				t.n--
				return false
			}
			page[id&pageMask] = ni + 1
			return true
		}
		// Too sparse for the table: pairs from here on.
		t.pairs = make([]uint64, 0, t.n+t.n/4)
		for p, page := range t.dense {
			for j, i := range page {
				if i != 0 {
					t.pairs = append(t.pairs, uint64(p<<pageBits|j)<<32|uint64(i-1))
				}
			}
		}
		t.dense, t.denseLen = nil, 0
	}
	t.pairs = append(t.pairs, uint64(id)<<32|uint64(ni))
	return true
}

// finish sorts a sparse table and returns an id named twice in it, if
// any (ok false).
func (t *TaskNames) finish() (dup uint32, ok bool) {
	t.index = nil
	if t.pairs == nil {
		return 0, true
	}
	if !slices.IsSorted(t.pairs) {
		slices.Sort(t.pairs)
	}
	for i := 1; i < len(t.pairs); i++ {
		if t.pairs[i]>>32 == t.pairs[i-1]>>32 {
			return uint32(t.pairs[i] >> 32), false
		}
	}
	return 0, true
}
