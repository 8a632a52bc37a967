package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, c := range []struct {
		main     string
		settings map[string]string
		want     string
	}{
		{"v1.2.3", map[string]string{"vcs.revision": "0123456789abcdef"}, "v1.2.3"},
		{"(devel)", nil, "devel"},
		{"", nil, "devel"},
		{"(devel)", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "false"}, "devel 0123456789ab"},
		{"(devel)", map[string]string{"vcs.revision": "abc", "vcs.modified": "true"}, "devel abc modified"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: c.main}}
		for k, v := range c.settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := version(bi); got != c.want {
			t.Errorf("version(%q, %v) = %q, want %q", c.main, c.settings, got, c.want)
		}
	}
	if Version() == "" {
		t.Error("Version() is empty")
	}
}
