package input

import "testing"

// Load says where each interpretation of a capture came from: the kernel
// name from --kernel-name or its default, the frequency from the flags or
// the SoC's table.
func TestLoadProvenance(t *testing.T) {
	t.Parallel()
	const capture = "../examples/moe_layer.bin"
	for _, c := range []struct {
		name       string
		o          Options
		kernel     string
		kernelFrom From
		mhz        float64
		freqFrom   From
	}{
		{"defaults", Options{SoC: "ascend910b", Family: &FamilyOptions{KernelName: "MegaKernel"}}, "MegaKernel", FromDefault, 50, FromSoC},
		{"flags", Options{SoC: "ascend910b", FreqMHz: 1000, FreqGiven: true, Family: &FamilyOptions{KernelName: "MegaMoe", KernelNameGiven: true}}, "MegaMoe", FromFlag, 1000, FromFlag},
	} {
		c.o.Paths = []string{capture}
		l, err := Load(c.o)
		if err != nil {
			l.Close()
			t.Fatalf("%s: %v", c.name, err)
		}
		mhz, _, from := l.Frequency(0)
		if l.Kernels[0] != c.kernel || l.KernelFrom[0] != c.kernelFrom || mhz != c.mhz || from != c.freqFrom {
			t.Errorf("%s: kernel %q from %s, %v MHz from %s; want %q from %s, %v MHz from %s", c.name, l.Kernels[0], l.KernelFrom[0], mhz, from, c.kernel, c.kernelFrom, c.mhz, c.freqFrom)
		}
		l.Close()
	}
}
