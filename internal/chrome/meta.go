// Package chrome holds the pieces of the Chrome Trace Event format that the
// trace writers share: decode's, which writes a MegaKernel's trace, and
// merge's, which adds the MegaKernel's core threads to a framework's
// trace. Both name processes and threads, and order threads, with the
// same metadata ("ph":"M") events, built here.
package chrome

import "strconv"

// AppendNameEvent appends a metadata event that names a process or a
// thread: event is "process_name" or "thread_name", pid is the process id
// as it stands in JSON (a number, or a framework's string), and name is
// the name already encoded as a JSON string.
func AppendNameEvent(b []byte, event, pid string, tid int64, name []byte) []byte {
	b = append(b, `{"name":"`...)
	b = append(b, event...)
	b = append(b, `","ph":"M","pid":`...)
	b = append(b, pid...)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"args":{"name":`...)
	b = append(b, name...)
	return append(b, "}}"...)
}

// AppendSortIndexEvent appends the thread_sort_index metadata event that
// places thread tid of process pid at index among the process's threads.
func AppendSortIndexEvent(b []byte, pid string, tid, index int64) []byte {
	b = append(b, `{"name":"thread_sort_index","ph":"M","pid":`...)
	b = append(b, pid...)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"args":{"sort_index":`...)
	b = strconv.AppendInt(b, index, 10)
	return append(b, "}}"...)
}
