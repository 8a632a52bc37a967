package buildinfo

import (
	"os"
	"testing"
)

// TestVersionFile: the committed VERSION is one version and a line end,
// and Version is what it holds, whatever the build's VCS stamping.
func TestVersionFile(t *testing.T) {
	data, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if Version() != v {
		t.Errorf("Version() = %q, VERSION holds %q", Version(), v)
	}
	if _, err := PEP440(v); err != nil {
		t.Error(err)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"0.5.0\n", "0.5.0"},
		{"1.20.3\n", "1.20.3"},
		{"0.6.0-rc.1\n", "0.6.0-rc.1"},
		{"0.6.0-alpha.0\n", "0.6.0-alpha.0"},
		{"0.5.0", ""},       // no line end
		{"0.5.0\n\n", ""},   // more than the version
		{" 0.5.0\n", ""},    // space
		{"v0.5.0\n", ""},    // the tag, not the version
		{"0.5\n", ""},       // two numbers
		{"0.05.0\n", ""},    // a leading zero
		{"0.5.0-rc1\n", ""}, // PEP 440's form, not the file's
		{"0.5.0-dev\n", ""},
		{"0.5.0\r\n", ""},
		{"", ""},
	} {
		got, err := Parse(c.text)
		if c.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %q, want an error", c.text, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.text, got, err, c.want)
		}
	}
}

func TestPEP440(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"0.5.0", "0.5.0"},
		{"0.6.0-rc.1", "0.6.0rc1"},
		{"1.0.0-alpha.2", "1.0.0a2"},
		{"1.0.0-beta.0", "1.0.0b0"},
	} {
		if got, err := PEP440(c.v); err != nil || got != c.want {
			t.Errorf("PEP440(%q) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
	for _, v := range []string{"v0.5.0", "0.5", "0.5.0-dev", "(devel)", ""} {
		if got, err := PEP440(v); err == nil {
			t.Errorf("PEP440(%q) = %q, want an error", v, got)
		}
	}
}
