package input

import (
	"fmt"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/decode"
	"github.com/megakernel/cycleabi/decode/kernelnames"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/jsontrace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of the functions that decide each interpretation of a
// source (docs/development.md's table): each one's precedence, the flag
// over what the data states over what is inferred over the default.

// TestSourceFrequencyPrecedence: --soc or --freq-mhz over the trace's
// stated frequency (its SoC where it names one) over its events' over
// --soc's default.
func TestSourceFrequencyPrecedence(t *testing.T) {
	t.Parallel()
	stated := &jsontrace.Source{FrequencyMHz: 100, SoCName: "ascend910_93"}
	unnamed := &jsontrace.Source{FrequencyMHz: 100}
	events := &jsontrace.Source{FrequencyMHz: 25, FromEvents: true}
	flags := flagFrequency{mhz: 1000, soc: "unknown", given: true}
	soc := flagFrequency{mhz: 50, soc: "ascend910b"}
	for _, c := range []struct {
		name  string
		t     *jsontrace.Source
		f     flagFrequency
		mhz   float64
		socIs string
		from  From
	}{
		{"flag over trace", stated, flags, 1000, "unknown", FromFlag},
		{"flag over events", events, flags, 1000, "unknown", FromFlag},
		{"trace over SoC", stated, soc, 100, "ascend910_93", FromTrace},
		{"trace naming no SoC keeps --soc's", unnamed, soc, 100, "ascend910b", FromTrace},
		{"events over SoC", events, soc, 25, "ascend910b", FromEvents},
		{"trace stating none", &jsontrace.Source{}, soc, 50, "ascend910b", FromSoC},
		{"capture", nil, soc, 50, "ascend910b", FromSoC},
		{"capture, flag", nil, flags, 1000, "unknown", FromFlag},
	} {
		mhz, socName, from := sourceFrequency(c.t, c.f)
		assert.Equalf(t, c.mhz, mhz, "%s", c.name)
		assert.Equalf(t, c.socIs, socName, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
}

// TestRankPrecedence: --rank over the rank a manifest or trace states over
// the file name's over 0 (for a single capture or a window's); otherwise
// an error, as is a rank too large for a pid.
func TestRankPrecedence(t *testing.T) {
	t.Parallel()
	flag, big := uint(7), uint(MaxRank)+1
	stated := uint32(5)
	for _, c := range []struct {
		name    string
		flag    *uint
		stated  *uint32
		path    string
		orZero  bool
		rank    uint32
		from    From
		wantErr string
	}{
		{"flag over manifest and file name", &flag, &stated, "rank3.bin", false, 7, FromFlag, ""},
		{"manifest over file name", nil, &stated, "rank3.bin", false, 5, FromManifest, ""},
		{"file name over default", nil, nil, "cap_r3.npy", true, 3, FromFileName, ""},
		{"default", nil, nil, "a.bin", true, 0, FromDefault, ""},
		{"none of several", nil, nil, "a.bin", false, 0, "", "cannot tell the rank of a.bin"},
		{"flag too large", &big, nil, "a.bin", true, 0, "", "--rank 2147483648 exceeds 2147483647"},
		{"file name too large", nil, nil, "rank99999999999.bin", true, 0, "", "exceeds 2147483647"},
	} {
		rank, from, err := Rank(c.flag, c.stated, FromManifest, c.path, c.orZero)
		switch {
		case c.wantErr != "":
			assert.ErrorContainsf(t, err, c.wantErr, "%s: got %v, want an error with %q", c.name, err, c.wantErr)
		case err != nil || rank != c.rank || from != c.from:
			assert.Fail(t, fmt.Sprintf("%s: got %d, %q, %v; want %d, %q", c.name, rank, from, err, c.rank, c.from))
		}
	}
}

// TestNamesOfPrecedence: --names over the trace's names over none.
func TestNamesOfPrecedence(t *testing.T) {
	t.Parallel()
	file, own := &kernelnames.Names{}, &kernelnames.Names{}
	for _, c := range []struct {
		name string
		file *kernelnames.Names
		t    *jsontrace.Source
		want *kernelnames.Names
		from From
	}{
		{"flag over trace", file, &jsontrace.Source{Names: own}, file, FromFlag},
		{"trace over default", nil, &jsontrace.Source{Names: own}, own, FromTrace},
		{"trace naming none", nil, &jsontrace.Source{}, nil, FromDefault},
		{"capture", nil, nil, nil, FromDefault},
	} {
		got, from := namesOf(c.file, c.t)
		assert.Samef(t, c.want, got, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
}

// TestKernelForPrecedence: --kernel-name when given over the kernel name
// the data states over --kernel-name's default.
func TestKernelForPrecedence(t *testing.T) {
	t.Parallel()
	given := &FamilyOptions{KernelName: "MegaMoeGrad", KernelNameGiven: true}
	dflt := &FamilyOptions{KernelName: "MegaKernel"}
	for _, c := range []struct {
		name string
		f    *FamilyOptions
		own  string
		want string
		from From
	}{
		{"flag over manifest", given, "MegaMoe", "MegaMoeGrad", FromFlag},
		{"manifest over default", dflt, "MegaMoe", "MegaMoe", FromManifest},
		{"default", dflt, "", "MegaKernel", FromDefault},
	} {
		got, from := c.f.KernelFor(c.own, FromManifest)
		assert.Equalf(t, c.want, got, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
}

// TestChoosePrecedence: --kernel-family over a trace's kernelFamily over
// the kernel name (--kernel-name, or the data's) over what the ids infer
// over none (the example capture's ids need no family; the family
// inferred from the data is TestLoadProvenance's window trace).
func TestChoosePrecedence(t *testing.T) {
	t.Parallel()
	c, err := capture.Open(exampleCapture)
	require.NoError(t, err)
	defer c.Close()
	d, err := decode.Decode(c, capture.Request{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name      string
		f         FamilyOptions
		own       string
		ownFamily string
		want      abi.Family
		from      From
	}{
		{"flag over trace", FamilyOptions{Family: "MegaMoeGrad", KernelName: "MegaKernel"}, "MegaMoe", "MegaMoe", abi.FamilyMegaMoeGrad, FromFlag},
		{"trace over kernel name", FamilyOptions{KernelName: "MegaKernel"}, "MegaMoe", "MegaMoeGrad", abi.FamilyMegaMoeGrad, FromTrace},
		{"--kernel-name over trace", FamilyOptions{KernelName: "MegaMoe", KernelNameGiven: true}, "", "MegaMoeGrad", abi.FamilyMegaMoe, FromKernelName},
		{"data's kernel name over inferred", FamilyOptions{KernelName: "MegaKernel"}, "MegaMoe", "", abi.FamilyMegaMoe, FromKernelName},
		{"none", FamilyOptions{KernelName: "MegaKernel"}, "", "", abi.FamilyNone, FromDefault},
	} {
		got, err := tc.f.Choose(new([]Finding), "x", tc.own, tc.ownFamily, "", d, nil)
		require.NoErrorf(t, err, "%s", tc.name)
		assert.Equalf(t, tc.want, got.Family, "%s", tc.name)
		assert.Equalf(t, tc.from, got.From, "%s", tc.name)
	}
}

// TestDeviceIDPrecedence: --device-id over the trace's over the rank.
func TestDeviceIDPrecedence(t *testing.T) {
	t.Parallel()
	flag, big := uint(9), uint(1)<<32
	tr := &jsontrace.Source{DeviceID: 5}
	for _, c := range []struct {
		name string
		flag *uint
		t    *jsontrace.Source
		want uint32
		from From
	}{
		{"flag over trace", &flag, tr, 9, FromFlag},
		{"trace over rank", nil, tr, 5, FromTrace},
		{"rank", nil, nil, 3, FromDefault},
	} {
		got, from, err := deviceID(c.flag, c.t, 3)
		require.NoErrorf(t, err, "%s", c.name)
		assert.Equalf(t, c.want, got, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
	_, _, err := deviceID(&big, nil, 0)
	assert.EqualErrorf(t, err, "--device-id 4294967296 exceeds 4294967295", "too large: got %v", err)
}

// TestOwnerLabelPrecedence: --owner-label when given over the trace's
// over the kernel family's over --owner-label's default.
func TestOwnerLabelPrecedence(t *testing.T) {
	t.Parallel()
	given := Options{OwnerLabel: "Mine", OwnerLabelGiven: true}
	dflt := Options{OwnerLabel: "Owner"}
	tr := &jsontrace.Source{OwnerLabel: "Theirs"}
	for _, c := range []struct {
		name string
		o    Options
		t    *jsontrace.Source
		fam  abi.Family
		want string
		from From
	}{
		{"flag over trace and family", given, tr, abi.FamilyMegaMoe, "Mine", FromFlag},
		{"trace over family", dflt, tr, abi.FamilyMegaMoe, "Theirs", FromTrace},
		{"family over default", dflt, &jsontrace.Source{}, abi.FamilyMegaMoe, abi.FamilyMegaMoe.OwnerLabel(), FromFamily},
		{"default", dflt, nil, abi.FamilyNone, "Owner", FromDefault},
	} {
		got, from := ownerLabel(c.o, c.t, c.fam)
		assert.Equalf(t, c.want, got, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
	require.NotEmpty(t, abi.FamilyMegaMoe.OwnerLabel(), "MegaMoe gives no owner label: the family case tests nothing")
}

// TestDetailedNamesPrecedence: --detailed-names when given over what the
// trace states over --detailed-names's default.
func TestDetailedNamesPrecedence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		o    Options
		t    *jsontrace.Source
		want bool
		from From
	}{
		{"flag over trace", Options{DetailedNames: false, DetailedNamesGiven: true}, &jsontrace.Source{DetailedNames: true}, false, FromFlag},
		{"trace over default", Options{}, &jsontrace.Source{DetailedNames: true}, true, FromTrace},
		{"default", Options{}, nil, false, FromDefault},
	} {
		got, from := detailedNames(c.o, c.t)
		assert.Equalf(t, c.want, got, "%s", c.name)
		assert.Equalf(t, c.from, from, "%s", c.name)
	}
}
