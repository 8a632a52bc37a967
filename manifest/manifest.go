// Package manifest reads an invocation manifest: the captures of a
// profiling window (several kernel launches per rank, forward and
// backward, several steps), one entry per capture, for cycleabi decode,
// validate and analyze.
//
//   - {capture: step3_fwd_r0.bin, rank: 0, invocation_id: 0, step: 3, direction: forward, kernel_name: HyperMegaMoe}
//   - {capture: step3_bwd_r0.bin, rank: 0, step: 3, direction: backward}
//
// The manifest is YAML or JSON (a JSON list is YAML). Capture paths are
// relative to the manifest's directory. Every key but capture is optional:
// rank defaults to the rank in the capture's file name as decode reads it
// (the caller decides), invocation_id to the entry's place among its
// rank's entries, step and direction to unknown, kernel_name to the
// command's --kernel-name.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

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

// maxManifestBytes bounds the manifest read; a window's manifest is a few
// lines per capture.
const maxManifestBytes = 64 << 20

type entryYAML struct {
	Capture      *string `yaml:"capture"`
	Rank         *int64  `yaml:"rank"`
	InvocationID *int64  `yaml:"invocation_id"`
	Step         *int64  `yaml:"step"`
	Direction    *string `yaml:"direction"`
	KernelName   *string `yaml:"kernel_name"`
}

// Load reads the manifest at path. Errors name the file and line.
func Load(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("%s: a manifest longer than %d bytes", path, maxManifestBytes)
	}
	return Parse(path, data)
}

// Parse reads a manifest's text; path names it in errors and anchors
// relative capture paths.
func Parse(path string, data []byte) ([]Entry, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty manifest: expected a list of captures", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d:%d: a manifest is a list of {capture, rank, invocation_id, step, direction, kernel_name}", path, doc.Line, doc.Column)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:%d:%d: the manifest lists no capture", path, doc.Line, doc.Column)
	}
	dir := filepath.Dir(path)
	entries := make([]Entry, 0, len(doc.Content))
	for i, n := range doc.Content {
		at := func(n *yaml.Node, format string, args ...any) error {
			return fmt.Errorf("%s:%d:%d: [%d]: %s", path, n.Line, n.Column, i, fmt.Sprintf(format, args...))
		}
		if n.Kind != yaml.MappingNode {
			return nil, at(n, "expected a mapping {capture: FILE, ...}")
		}
		for k := 0; k+1 < len(n.Content); k += 2 {
			key := n.Content[k].Value
			if !slices.Contains([]string{"capture", "rank", "invocation_id", "step", "direction", "kernel_name"}, key) {
				return nil, at(n.Content[k], "unknown key %q (capture, rank, invocation_id, step, direction, kernel_name)", key)
			}
		}
		var y entryYAML
		if err := n.Decode(&y); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) && len(te.Errors) > 0 {
				return nil, fmt.Errorf("%s: [%d]: %s", path, i, te.Errors[0])
			}
			return nil, at(n, "%v", err)
		}
		e := Entry{Line: n.Line}
		if y.Capture == nil || *y.Capture == "" {
			return nil, at(n, "no capture")
		}
		e.Capture = *y.Capture
		if !filepath.IsAbs(e.Capture) {
			e.Capture = filepath.Join(dir, e.Capture)
		}
		if y.Rank != nil {
			if *y.Rank < 0 || *y.Rank > 1<<31-1 {
				return nil, at(n, "rank %d is not in [0, 2147483647]", *y.Rank)
			}
			r := uint32(*y.Rank)
			e.Rank = &r
		}
		e.InvocationID, e.Step = y.InvocationID, y.Step
		if y.Direction != nil {
			switch *y.Direction {
			case "forward", "backward":
				e.Direction = *y.Direction
			default:
				return nil, at(n, "direction %q is not forward or backward", *y.Direction)
			}
		}
		if y.KernelName != nil {
			e.KernelName = *y.KernelName
		}
		entries = append(entries, e)
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
