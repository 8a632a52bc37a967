package schema

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// Canonical is the text the fingerprint hashes: the buffer layout and
// nothing else. One line per fact that decides where a byte is and what it
// holds: the header and record structs (field names, offsets, types and
// the enums they use), the values of those wire enums, the layout's
// constants and the slot regions in buffer order.
//
// Left out on purpose, so that the changes `abigen diff` calls compatible
// never change it: docs, display names and formats, the SoC table, the
// descriptor namespaces and the enums they name (a new task type adds
// meaning to a desc_id without moving a byte), the kernel families (names
// and classes of ids, per kernel), constants and structs the layout does
// not use, and the order of entries where order means nothing.
// A changed fingerprint therefore always means a breaking wire change; the
// converse need not hold (abigen diff also flags, say, a renumbered task
// type, which moves no byte but changes what one means).
func (s *Schema) Canonical() string {
	var b strings.Builder
	b.WriteString("cycleabi-layout-v1\n")
	l := s.Layout
	if l == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "align %d\nmin_cube_slots %d\nslot_stride_limit %d\nmax_records_per_core %d\n",
		l.Alignment.Value, l.MinCubeSlots.Value, l.StrideLimit.Value, l.MaxRecordsPerCore.Value)
	enums := map[string]*Enum{}
	for _, st := range []*Struct{l.Header, l.Record} {
		fmt.Fprintf(&b, "struct %s %d\n", st.Name, st.Size)
		for _, f := range st.Fields {
			enum := ""
			if f.Enum != nil {
				enum = " enum=" + f.Enum.Name
				enums[f.Enum.Name] = f.Enum
			}
			fmt.Fprintf(&b, "  %s %s @%d +%d%s\n", f.Name, f.Type, f.Offset, f.Size, enum)
		}
	}
	names := make([]string, 0, len(enums))
	for name := range enums {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		values := append([]*EnumValue(nil), enums[name].Values...)
		sort.Slice(values, func(i, j int) bool { return values[i].Value < values[j].Value })
		fmt.Fprintf(&b, "enum %s\n", name)
		for _, v := range values {
			fmt.Fprintf(&b, "  %s %d\n", v.Name, v.Value)
		}
	}
	for _, r := range l.Regions {
		fmt.Fprintf(&b, "region %s x%d\n", r.CoreType.Name, r.SlotsPerCubeSlot)
	}
	return b.String()
}

func fingerprint(s *Schema) uint64 {
	sum := sha256.Sum256([]byte(s.Canonical()))
	return binary.BigEndian.Uint64(sum[:8])
}

// FingerprintHex is the fingerprint as 16 lower-case hex digits.
func (s *Schema) FingerprintHex() string { return fmt.Sprintf("%016x", s.Fingerprint) }
