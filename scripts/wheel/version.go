package main

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	// release is a tagged module version: v1.2.3, v1.2.3-rc.1.
	release = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(?:-(alpha|beta|rc)\.?(\d+))?$`)
	// pseudo is a Go pseudo-version (go.dev/ref/mod#pseudo-versions) with
	// its base version, its yyyymmddhhmmss commit time and its 12-digit
	// revision: v0.0.0-20261204203046-450c912abcde (no tag before),
	// v1.2.4-0.20261204203046-450c912abcde (after v1.2.3),
	// v1.2.3-rc.1.0.20261204203046-450c912abcde (after v1.2.3-rc.1).
	pseudo = regexp.MustCompile(`^(v\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+?)??)[-.](?:0\.)?(\d{14})-([0-9a-f]{12})$`)
)

// pep440 turns the module version a program was built at, as
// runtime/debug.BuildInfo's Main.Version gives it (what `cycleabi
// --version` prints), into a PEP 440 version for the wheel:
//
//	v1.2.3                                  1.2.3
//	v1.2.3-rc.1                             1.2.3rc1 (alpha a, beta b)
//	v0.0.0-20261204203046-450c912abcde      0.0.0.dev20261204203046+g450c912abcde
//	v1.2.4-0.20261204203046-450c912abcde    1.2.4.dev20261204203046+g450c912abcde
//	any of these with +dirty                the same, with .dirty in the local part
//	(devel) or empty (no VCS stamp)         0.0.0+devel
//
// A pseudo-version's commit time makes later commits sort later; its
// revision rides in the local part, which pip keeps but never compares
// against an index.
func pep440(goVersion string) (string, error) {
	v, dirty := strings.CutSuffix(goVersion, "+dirty")
	local := ""
	if dirty {
		local = "dirty"
	}
	join := func(public string, parts ...string) string {
		var l []string
		for _, p := range parts {
			if p != "" {
				l = append(l, p)
			}
		}
		if len(l) == 0 {
			return public
		}
		return public + "+" + strings.Join(l, ".")
	}
	if v == "" || v == "(devel)" {
		return join("0.0.0", "devel", local), nil
	}
	if m := release.FindStringSubmatch(v); m != nil {
		public := m[1] + "." + m[2] + "." + m[3]
		if m[4] != "" {
			public += map[string]string{"alpha": "a", "beta": "b", "rc": "rc"}[m[4]] + m[5]
		}
		return join(public, local), nil
	}
	if m := pseudo.FindStringSubmatch(v); m != nil {
		base := release.FindStringSubmatch(m[1])
		if base == nil {
			return "", fmt.Errorf("module version %q: its base %q is not vX.Y.Z[-alpha|beta|rc.N]", goVersion, m[1])
		}
		public := base[1] + "." + base[2] + "." + base[3]
		if base[4] != "" {
			public += map[string]string{"alpha": "a", "beta": "b", "rc": "rc"}[base[4]] + base[5]
		}
		return join(public+".dev"+m[2], "g"+m[3], local), nil
	}
	return "", fmt.Errorf("module version %q is neither vX.Y.Z[-alpha|beta|rc.N] nor a pseudo-version; no PEP 440 version for it", goVersion)
}
