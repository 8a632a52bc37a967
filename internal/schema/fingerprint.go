package schema

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
)

// Canonical is the text the fingerprint hashes: one line per fact that
// decides what a byte on the wire means (constants, struct and field
// names, offsets and types, enum values, the slot regions, descriptor
// ranges), in schema order. Docs, display names and the SoC table are
// left out: changing them moves no byte.
func (s *Schema) Canonical() string {
	var b strings.Builder
	b.WriteString("cycleabi-fingerprint-v1\n")
	for _, c := range s.Constants {
		fmt.Fprintf(&b, "const %s %d\n", c.Name, c.Value)
	}
	for _, e := range s.Enums {
		fmt.Fprintf(&b, "enum %s\n", e.Name)
		for _, v := range e.Values {
			fmt.Fprintf(&b, "  %s %d\n", v.Name, v.Value)
		}
	}
	for _, st := range s.Structs {
		fmt.Fprintf(&b, "struct %s %d\n", st.Name, st.Size)
		for _, f := range st.Fields {
			enum := ""
			if f.Enum != nil {
				enum = " enum=" + f.Enum.Name
			}
			fmt.Fprintf(&b, "  %s %s @%d +%d%s\n", f.Name, f.Type, f.Offset, f.Size, enum)
		}
	}
	if l := s.Layout; l != nil {
		fmt.Fprintf(&b, "layout header=%s record=%s align=%s min_cube=%s stride_limit=%s\n",
			l.Header.Name, l.Record.Name, l.Alignment.Name, l.MinCubeSlots.Name, l.StrideLimit.Name)
		for _, r := range l.Regions {
			fmt.Fprintf(&b, "  region %s x%d\n", r.CoreType.Name, r.SlotsPerCubeSlot)
		}
	}
	if d := s.Descriptors; d != nil {
		for _, ns := range d.Namespaces {
			enum := ""
			if ns.Enum != nil {
				enum = " enum=" + ns.Enum.Name
			}
			fmt.Fprintf(&b, "namespace %s [0x%x,0x%x)%s\n", ns.Name, ns.Base, ns.End(), enum)
		}
	}
	return b.String()
}

func fingerprint(s *Schema) uint64 {
	sum := sha256.Sum256([]byte(s.Canonical()))
	return binary.BigEndian.Uint64(sum[:8])
}

// FingerprintHex is the fingerprint as 16 lower-case hex digits.
func (s *Schema) FingerprintHex() string { return fmt.Sprintf("%016x", s.Fingerprint) }
