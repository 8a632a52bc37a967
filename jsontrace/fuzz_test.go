package jsontrace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/megakernel/cycleabi/validate"
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
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := jsontrace.Read(p, dir)
		if err != nil {
			var e *jsontrace.Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %T %v", err, err)
			}
			return
		}
		defer tr.Close()
		for _, s := range tr.Sources {
			d, err := s.Decode()
			if err != nil {
				t.Fatalf("%s read back but does not decode: %v", s.Name, err)
			}
			if d.Summary.Records != s.Records {
				t.Fatalf("%d records decoded, %d events", d.Summary.Records, s.Records)
			}
			res, err := s.Validate(validate.Options{})
			if err != nil || !res.OK() {
				t.Fatalf("%s read back but validate finds errors: %v %+v", s.Name, err, res)
			}
		}
	})
}
