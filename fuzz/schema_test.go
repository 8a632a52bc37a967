package fuzz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megakernel/cycleabi/internal/abigen/cppgen"
	"github.com/megakernel/cycleabi/internal/abigen/docgen"
	"github.com/megakernel/cycleabi/internal/abigen/gogen"
	"github.com/megakernel/cycleabi/internal/abigen/pygen"
	"github.com/megakernel/cycleabi/internal/abigen/schema"
	"github.com/megakernel/cycleabi/internal/testkit/fuzzseed"
	"github.com/stretchr/testify/require"
)

// maxText is the largest schema FuzzSchemaLoad looks at.
const maxText = 64 << 10

// FuzzSchemaLoad loads arbitrary text as an ABI schema. Load never panics;
// an error is a schema.ErrorList whose every entry names the file and a
// line (and prints them first); a schema it accepts loads again to the
// same fingerprint, and every emitter (Go, C++, Python, docs) renders it without
// panicking.
func FuzzSchemaLoad(f *testing.F) {
	fuzzseed.Files(f, "../abi/schema.yaml", "../internal/abigen/schema/testdata/*.yaml", "../internal/abigen/schema/testdata/invalid/*.yaml",
		"../internal/abigen/cppgen/testdata/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxText {
			return
		}
		const file = "fuzz.yaml"
		s, err := schema.Load(file, data)
		if err != nil {
			var list *schema.ErrorList
			require.ErrorAsf(t, err, &list, "Load error is not a non-empty schema.ErrorList: %T %v", err, err)
			require.NotEqualf(t, 0, list.Len(), "Load error is not a non-empty schema.ErrorList: %T %v", err, err)
			for _, e := range list.Errs {
				require.Equalf(t, file, e.File, "schema error without file and line: %+v", e)
				require.GreaterOrEqualf(t, e.Line, 1, "schema error without file and line: %+v", e)
				require.Truef(t, strings.HasPrefix(e.Error(), fmt.Sprintf("%s:%d:", file, e.Line)), "schema error %q does not start with", e.Error())
			}
			return
		}
		again, err := schema.Load(file, data)
		require.NoError(t, err, "loading the same schema twice")
		require.Equal(t, s.Fingerprint, again.Fingerprint, "loading the same schema twice: fingerprints")
		require.Equal(t, s.Canonical(), again.Canonical(), "loading the same schema twice: canonical form")

		// The emitters may refuse a schema (a name that collides in one
		// language); they must not panic on one the model accepted.
		_, _ = cppgen.Generate(s)
		_, _ = gogen.Generate(s)
		_, _ = pygen.Generate(s)
		_, _ = docgen.Generate(s)
	})
}
