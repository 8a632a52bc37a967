package jsonread

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkTraceEvents reads a 32 MB trace of events of the shape
// cycleabi decode writes, as jsontrace reads one: the array's elements
// whole, then each one's fields and its args' fields. bytes/s is of the
// JSON text (docs/performance.md).
func BenchmarkTraceEvents(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"traceEvents":[` + "\n")
	for i := 0; buf.Len() < 32<<20; i++ {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, `{"name":"MatMul","ph":"X","cat":"MegaKernelInternal","pid":0,"tid":%d,"ts":%d.125,"dur":1.5,"args":{"rank":0,"device_id":0,"core_type":"AIC","block_id":%d,"task_id":%d,"desc_id":103,"stage_task_index":%d,"start_cycle":%d,"end_cycle":%d,"core_entry_cycle":1000}}`,
			1000+i%48, 100+i, i%48, i, i%7, 2000+i*10, 2005+i*10)
	}
	buf.WriteString("\n]}\n")
	path := filepath.Join(b.TempDir(), "t.json")
	require.NoError(b, os.WriteFile(path, buf.Bytes(), 0o644))
	b.SetBytes(int64(buf.Len()))
	var fields, args []Field
	for b.Loop() {
		r, err := Open(path)
		require.NoError(b, err)
		r.NonFinite = true
		n := 0
		err = r.Object("a trace", func(key []byte, at Pos) error {
			if string(key) != "traceEvents" {
				return r.Skip()
			}
			return r.Array(false, "a trace event", func(raw []byte, at Pos) error {
				fields, _ = Fields(raw, fields)
				args, _ = Fields(Lookup(fields, "args"), args)
				n += len(args)
				return nil
			})
		})
		if err == nil {
			err = r.End("trace")
		}
		require.NoError(b, err)
		require.NotEqual(b, 0, n)
		r.Close()
	}
}
