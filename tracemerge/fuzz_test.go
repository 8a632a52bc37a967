package tracemerge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }

// FuzzMerge: any framework trace either merges into valid UTF-8 JSON
// (when it was valid JSON itself) or fails with an InputError or
// SelectionError; never a panic. The options (index, pid filter, host
// wrappers, chunk of the fallback) come from the input's length. The
// traces are read from memory.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(kinetoTrace))
	f.Add([]byte(hostOnly))
	f.Add([]byte(`[{"name":"HyperMegaMoe_0","pid":2080,"tid":5,"ts":"1788773332531494.453","dur":"2040.125","ph":"X","cat":null,"args":{"Task Type":"MIX_AIC"}}`))
	f.Add([]byte(`{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":1e3,"dur":"5."}],"megaKernelTraceMerge":{}}`))
	f.Add([]byte(`[{"name":"hyper_mega_moe","ts":" 1_0 ","dur":"2","cat":"Ascend Hardware"},{"name":"HyperMegaMoe","ts":null,"dur":1},{"name":"k","ts":5,"dur":3,"args":{"task_type":"AI_CORE"}},{"name":"k2","ts":1,"dur":30,"cat":"npu"}]`))
	f.Add([]byte("[{\"name\":\"HyperMegaMoe_\xff\",\"ts\":1e300,\"dur\":1,\"cat\":\"kernel\"}]"))
	mk := []byte(`{"traceEvents":[{"name":"A","ph":"X","pid":0,"tid":1000,"ts":1.5,"dur":2},{"name":"B","ph":"X","pid":0,"tid":2001,"ts":0.25,"dur":20},` +
		`{"name":"event 1","cat":"dependency","ph":"s","id":1,"pid":0,"tid":1000,"ts":2},{"name":"event 1","cat":"dependency","ph":"f","bp":"e","id":1,"pid":0,"tid":2001,"ts":3}],` +
		`"megaKernelCycleTrace":{"schemaVersion":1,"rank":0,"kernelName":"HyperMegaMoe"}}`)
	defer func(c int) { fallbackChunk = c }(fallbackChunk)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		old := openFile
		defer func() { openFile = old }()
		openFile = func(path string) (io.ReadSeekCloser, error) {
			switch path {
			case "fw.json":
				return memFile{bytes.NewReader(data)}, nil
			case "mk.json":
				return memFile{bytes.NewReader(mk)}, nil
			}
			return nil, os.ErrNotExist
		}
		var out bytes.Buffer
		o := Options{Framework: "fw.json", MegaKernel: "mk.json", Rank: -1, AllowHostWrapper: len(data)%2 == 0, KernelIndex: len(data) / 2 % 3}
		if len(data)%5 == 0 {
			pid := "0"
			o.OuterPID = &pid
		}
		fallbackChunk = 1 + len(data)%4
		_, err := Merge(&out, o)
		if err != nil {
			var ie *InputError
			var se *SelectionError
			require.Falsef(t, !errors.As(err, &ie) && !errors.As(err, &se), "error of an unexpected kind: %v", err)
			return
		}
		if json.Valid(data) {
			require.True(t, json.Valid(out.Bytes()), "valid input, invalid output:\n%s", out.Bytes())
		}
		require.Truef(t, utf8.Valid(out.Bytes()), "output is not UTF-8:\n%q", out.Bytes())
	})
}
