package jsontrace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/require"
)

// FuzzRead: any bytes are read back or refused with an *Error (or an I/O
// error), never a panic; what is read back decodes, with as many records
// as the trace has events, and validates with no error (reading refused
// what decode refuses).
func FuzzRead(f *testing.F) {
	good := ev("TaskType_MatMul", "")
	for _, s := range []string{
		trace(good),
		trace(good, ev("Combine_WaitDependency", `"desc_id":65536,"task_stage":"Combine","owner_id":4,"block_id":40`)),
		strings.Replace(trace(ev("X", `"invocation_id":1,"step":2,"direction":"forward"`)), `"kernelName"`, `"invocations":[{"invocationId":1,"rank":0}],"kernelName"`, 1),
		"{\"traceEvents\":[],\"megaKernelCycleTrace\":{}}",
		"{}",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.json")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		tr, err := jsontrace.Read(p, dir)
		if err != nil {
			var e *jsontrace.Error
			require.ErrorAsf(t, err, &e, "not an *Error: %T %v", err, err)
			return
		}
		defer tr.Close()
		for _, s := range tr.Sources {
			d, err := s.Decode()
			require.NoErrorf(t, err, "%s read back but does not decode", s.Name)
			require.Equal(t, s.Records, d.Summary.Records)
			res, err := s.Validate(validate.Options{})
			require.NoErrorf(t, err, "%s read back but validate finds errors %+v", s.Name, res)
			require.Truef(t, res.OK(), "%s read back but validate finds errors %+v", s.Name, res)
		}
	})
}
