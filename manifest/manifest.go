// Package manifest reads an invocation manifest: the captures of a
// profiling window (several kernel launches per rank, forward and
// backward, several steps), one entry per capture, for cycleabi decode,
// validate and analyze.
//
//   - {capture: step3_fwd_r0.bin, rank: 0, invocation_id: 0, step: 3, direction: forward, kernel_name: HyperMegaMoe}
//   - {capture: step3_bwd_r0.bin, rank: 0, step: 3, direction: backward}
//
// The manifest is YAML or JSON (a JSON list is YAML), read by the rules
// of every cycleabi input (package internal/yamlpos: size caps, one
// document, aliases, YAML integers, unknown and duplicate keys refused,
// "file:line:col: [i].key: message"). Capture paths are relative to the
// manifest's directory. Every key but capture is optional:
// rank defaults to the rank in the capture's file name as decode reads it
// (the caller decides), invocation_id to the entry's place among its
// rank's entries, step and direction to unknown, kernel_name to the
// command's --kernel-name; an optional key given as null is absent. A rank
// is 0 to 2^31-1, an invocation_id 0 or more.
package manifest

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/megakernel/cycleabi/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Entry is one capture of the manifest.
type Entry struct {
	// Capture is the capture's path, joined to the manifest's directory
	// when relative.
	Capture string
	// Rank, InvocationID and Step are nil when not given.
	Rank         *uint32
	InvocationID *int64
	Step         *int64
	// Direction is "forward", "backward" or "" (not given).
	Direction string
	// KernelName is "" when not given.
	KernelName string
	// Line is the entry's line in the manifest.
	Line int
}

// keys are an entry's keys, in the order messages list them.
var keys = []string{"capture", "rank", "invocation_id", "step", "direction", "kernel_name"}

// maxRank bounds ranks (trace pids, read as int32 by viewers).
const maxRank = 1<<31 - 1

// Load reads the manifest at path, under the input size cap of package
// yamlpos (a larger file is refused before it is read). Errors name the
// file, line and column.
func Load(path string) ([]Entry, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	data, err := yamlpos.ReadDocumentFile(path, "invocation manifest", lim, nil, "")
	if err != nil {
		return nil, err
	}
	return parse(path, data, lim)
}

// Parse reads a manifest's text; path names it in errors and anchors
// relative capture paths. It reads YAML by the rules every cycleabi input
// follows (package yamlpos): one document, aliases followed, unknown and
// duplicate keys refused at the key, an integer a YAML integer, every
// problem as "file:line:col: [i].key: message", all of them in one error.
// An optional key given as null is absent.
func Parse(path string, data []byte) ([]Entry, error) {
	lim, err := yamlpos.CurrentLimits()
	if err != nil {
		return nil, err
	}
	return parse(path, data, lim)
}

func parse(path string, data []byte, lim yamlpos.Limits) ([]Entry, error) {
	root, err := yamlpos.Document(path, "YAML or JSON", data, lim, "")
	if err != nil {
		return nil, err
	}
	if root == nil || yamlpos.IsNull(root) {
		return nil, fmt.Errorf("%s: empty manifest: expected a list of captures", path)
	}
	r := yamlpos.Reader{File: path, Errs: yamlpos.List{Max: 20}}
	if root.Kind != yaml.SequenceNode {
		r.Errorf(root, "", "a manifest is a list of {%s}, got %s", strings.Join(keys, ", "), yamlpos.KindName(root))
		return nil, &r.Errs
	}
	if len(root.Content) == 0 {
		r.Errorf(root, "", "the manifest lists no capture")
		return nil, &r.Errs
	}
	dir := filepath.Dir(path)
	entries := make([]Entry, 0, len(root.Content))
	for i, n := range root.Content {
		at := fmt.Sprintf("[%d]", i)
		n = yamlpos.Resolve(n)
		m := r.Mapping(n, at, keys, []string{"capture"})
		if m == nil {
			continue
		}
		e := Entry{Line: n.Line}
		if c, ok := r.Str(m["capture"], at+".capture"); ok {
			if c == "" {
				r.Errorf(m["capture"], at+".capture", "empty capture path")
			}
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			e.Capture = c
		}
		for k, v := range m {
			if k != "capture" && yamlpos.IsNull(v) {
				delete(m, k)
			}
		}
		if v, ok := r.Int(m["rank"], at+".rank", 0, maxRank); ok {
			rank := uint32(v)
			e.Rank = &rank
		}
		if v, ok := r.Int(m["invocation_id"], at+".invocation_id", 0, math.MaxInt64); ok {
			e.InvocationID = &v
		}
		if v, ok := r.Int(m["step"], at+".step", math.MinInt64, math.MaxInt64); ok {
			e.Step = &v
		}
		if d, ok := r.Str(m["direction"], at+".direction"); ok {
			if d != "forward" && d != "backward" {
				r.Errorf(m["direction"], at+".direction", "direction %q is not forward or backward", d)
			}
			e.Direction = d
		}
		if k, ok := r.Str(m["kernel_name"], at+".kernel_name"); ok {
			e.KernelName = k
		}
		entries = append(entries, e)
	}
	if err := r.Errs.Err(); err != nil {
		r.Errs.Sort()
		return nil, err
	}
	return entries, nil
}

// Captures returns the entries' capture paths, in order.
func Captures(entries []Entry) []string {
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Capture
	}
	return paths
}
