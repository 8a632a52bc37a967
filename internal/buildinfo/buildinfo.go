// Package buildinfo says which build of a command is running, for its
// --version output.
package buildinfo

import (
	"runtime/debug"
)

// Version returns the program's version: the module version it was built
// at (go install ...@v1.2.3), else "devel" followed by the VCS revision
// and whether the tree was modified when the build stamped one
// ("devel 7c421dc0a1b2 modified"), else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return version(bi)
}

func version(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel " + rev
	if modified == "true" {
		v += " modified"
	}
	return v
}
