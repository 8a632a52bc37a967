package tracemerge

import (
	"strconv"

	"github.com/megakernel/cycleabi/decode/kernelnames"
)

// capNames cuts the names merge copies many times, each to the cap on a
// name in a names file (4,096 bytes), with a warning naming where it was
// read: an outer kernel's name goes into the args of every event of its
// invocations (parent_kernel), a MegaKernel kernelName into every new
// thread's name. A 1 MB outer kernel name turned a 1 MB framework trace
// into a 2.98 GB output.
func (m *merger) capNames() {
	for tid, n := range m.mk.coreNames {
		// A core's thread_name goes into its thread's name, once an
		// invocation.
		if len(n) > kernelnames.MaxNameBytes {
			m.warn("%s: the thread_name of tid %d is %s bytes long: kept its first %s bytes (the cap on a name, as in a names file) in the thread names",
				m.mk.path, tid, groupInt(len(n)), groupInt(kernelnames.MaxNameBytes))
			m.mk.coreNames[tid] = cutName(n)
		}
	}
	warned := map[*kernel]bool{}
	for _, inv := range m.mk.inv {
		if k := inv.outer; len(k.name) > kernelnames.MaxNameBytes && !warned[k] {
			warned[k] = true
			m.warn("%s:%d: byte %d: the outer kernel's name is %s bytes long: kept its first %s bytes (the cap on a name, as in a names file) in the events' parent_kernel",
				m.o.Framework, k.at.Line, k.at.Offset, groupInt(len(k.name)), groupInt(kernelnames.MaxNameBytes))
			k.name = cutName(k.name)
		}
		if len(inv.kernelName) > kernelnames.MaxNameBytes {
			m.warn("%s: invocation %d: the kernelName is %s bytes long: kept its first %s bytes (the cap on a name, as in a names file) in the thread names",
				m.mk.path, inv.id, groupInt(len(inv.kernelName)), groupInt(kernelnames.MaxNameBytes))
			inv.kernelName = cutName(inv.kernelName)
		}
	}
}

// cutName cuts s to kernelnames.MaxNameBytes at the start of a character.
func cutName(s string) string {
	n := kernelnames.MaxNameBytes
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:min(n, len(s))]
}

// groupInt writes n with a comma every three digits.
func groupInt(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
