package validate

import "github.com/megakernel/cycleabi/capture"

// SetExactOverlapLimit changes the largest unsorted slot whose overlaps
// are found exactly, for tests; it returns a function that restores it.
func SetExactOverlapLimit(n int) (restore func()) {
	old := exactOverlapLimit
	exactOverlapLimit = n
	return func() { exactOverlapLimit = old }
}

// EnumChecked reports whether header fields of the enum are checked.
func EnumChecked(enum string) bool { return enumValid[enum] != nil }

// SetMaxKeptFindings changes the bound on findings kept per code, for
// tests; it returns a function that restores it.
func SetMaxKeptFindings(n int) (restore func()) {
	old := maxKeptFindings
	maxKeptFindings = n
	return func() { maxKeptFindings = old }
}

// SetFastPaths turns the block check (and the parallel walk of slots) off
// or on, for tests that compare them with the record hook alone; it
// returns a function that restores them.
func SetFastPaths(on bool) (restore func()) {
	old := fastPaths
	fastPaths = on
	return func() { fastPaths = old }
}

// ScanSummary is the summary of one serial walk of buf with validate's
// hooks, the block check on or off: what the block check tells the scan
// of the records it takes (Taken) shows in each slot's Sorted and the
// capture's Earliest.
func ScanSummary(buf []byte, o Options, block bool) (*capture.Summary, error) {
	c, err := capture.FromBytes("x.bin", buf)
	if err != nil {
		return nil, err
	}
	res, err := c.Resolve(o.Layout)
	if err != nil {
		return nil, err
	}
	v := newValidator(c, o)
	v.layout, v.hint = res.Layout, res.Hint
	opts := capture.ScanOptions{Problem: v.problem, Record: v.record, Slot: v.slot, Hint: res.Hint}
	if block {
		opts.Block = v.block
	}
	return c.Scan(res.Layout, opts)
}

// SetSpillBytes changes how many bytes of entries a DocumentWriter keeps
// in memory, for tests; it returns a function that restores it.
func SetSpillBytes(n int) (restore func()) {
	old := spillBytes
	spillBytes = n
	return func() { spillBytes = old }
}
