package duckdb

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
)

// polarsBuild is the name of polars' native build for this machine, the
// npm package nodejs-polars loads (glibc assumed on Linux).
func polarsBuild() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	switch runtime.GOOS {
	case "linux":
		return "nodejs-polars-linux-" + arch + "-gnu"
	case "windows":
		return "nodejs-polars-win32-" + arch + "-msvc"
	}
	return "nodejs-polars-" + runtime.GOOS + "-" + arch
}

// polarsMissing says why node cannot load polars here, with the npm
// command that installs it, or "" when it can. npm ci installs nodejs-polars
// (package-lock.json pins it) but silently skips its native build on node
// older than 22: the build is an optional dependency whose engines say
// node >= 22, though it runs on node 20; installed by name it is kept.
func polarsMissing(node string) string {
	cmd := exec.Command(node, "-e", "require('nodejs-polars')")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	version := "VERSION"
	if lock, err := os.ReadFile("package-lock.json"); err == nil {
		var l struct {
			Packages map[string]struct{ Version string } `json:"packages"`
		}
		if json.Unmarshal(lock, &l) == nil && l.Packages["node_modules/nodejs-polars"].Version != "" {
			version = l.Packages["node_modules/nodejs-polars"].Version
		}
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Error") {
			first = line
			break
		}
	}
	return fmt.Sprintf("polars is not installed here (%s): `npm ci` in tests/duckdb, then on node older than 22 `npm install --no-save %s@%s` there (.ci/run does both)",
		first, polarsBuild(), version)
}

// polarsType is the type polars gives a column of the Parquet type n, as
// its JS API prints it: the unsigned integers as UInt32 or UInt64, a map
// as a list of key/value structs.
func polarsType(n parquet.Node) string {
	t := n.Type()
	if lt := t.LogicalType(); lt != nil {
		switch lv := lt.Value.(type) {
		case *format.MapType:
			kv := n.Fields()[0]
			var k, v parquet.Node
			for _, f := range kv.Fields() {
				switch f.Name() {
				case "key":
					k = f
				case "value":
					v = f
				}
			}
			return fmt.Sprintf(`DataType(List(DataType(Struct(Field("key", %s),Field("value", %s)))))`, polarsType(k), polarsType(v))
		case *format.StringType:
			return "DataType(String)"
		case *format.IntType:
			name := "Int"
			if !lv.IsSigned {
				name = "UInt"
			}
			return fmt.Sprintf("DataType(%s%d)", name, lv.BitWidth)
		}
	}
	switch t.Kind() {
	case parquet.Int32:
		return "DataType(Int32)"
	case parquet.Int64:
		return "DataType(Int64)"
	case parquet.Double:
		return "DataType(Float64)"
	case parquet.Float:
		return "DataType(Float32)"
	case parquet.Boolean:
		return "DataType(Boolean)"
	}
	return "parquet type " + t.String()
}

// checkPolarsSchema: polars reads path's columns in the file's order, each
// with the type its Parquet type (as parquet-go reads it) maps to.
func checkPolarsSchema(t *testing.T, path string, got [][2]string) {
	t.Helper()
	pf := openParquet(t, path)
	var want [][2]string
	for _, field := range pf.Schema().Fields() {
		want = append(want, [2]string{field.Name(), polarsType(field)})
	}
	assert.Equal(t, want, got, "%s: polars' columns and types", path)
}

// TestPolarsType: the expected polars types of export's column kinds.
func TestPolarsType(t *testing.T) {
	s := parquet.NewSchema("t", parquet.Group{
		"u64": parquet.Uint(64),
		"u32": parquet.Uint(32),
		"i64": parquet.Optional(parquet.Leaf(parquet.Int64Type)),
		"i32": parquet.Int(32),
		"f":   parquet.Leaf(parquet.DoubleType),
		"s":   parquet.String(),
		"m":   parquet.Map(parquet.String(), parquet.Uint(32)),
	})
	got := map[string]string{}
	for _, f := range s.Fields() {
		got[f.Name()] = polarsType(f)
	}
	assert.Equal(t, map[string]string{
		"u64": "DataType(UInt64)",
		"u32": "DataType(UInt32)",
		"i64": "DataType(Int64)",
		"i32": "DataType(Int32)",
		"f":   "DataType(Float64)",
		"s":   "DataType(String)",
		"m":   `DataType(List(DataType(Struct(Field("key", DataType(String)),Field("value", DataType(UInt32))))))`,
	}, got)
}
