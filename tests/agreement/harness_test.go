package agreement_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/internal/testkit/golden"
	"github.com/megakernel/cycleabi/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harnessScenarios are the captures the harness writes, in its order; a
// scenario added to or dropped from the harness must be added here too.
var harnessScenarios = []string{"gold", "every-core", "aiv-pipeline", "full-slots", "cube-25", "cube-40", "extremes", "sparse"}

// TestHarnessAgreement builds the C++ writer harness with every compiler on
// PATH, at c++11 and c++20, plain and with ASan+UBSan, runs it, and decodes
// every capture it writes with the Go decoders: each must hold exactly the
// slots, headers, records, counts and drops the harness's manifest lists.
// Every build must also write the same bytes.
func TestHarnessAgreement(t *testing.T) {
	type output struct {
		build  string
		hashes map[string][32]byte // file name or "manifest" -> SHA-256
	}
	var outputs []output
	outCh := make(chan output, 16)
	t.Run("builds", func(t *testing.T) {
		for _, b := range harnessBuilds(t) {
			t.Run(b.String(), func(t *testing.T) {
				t.Parallel()
				exe := buildHarness(t, b)
				dir, text := runHarness(t, exe)
				m, err := parseManifest(text)
				require.NoError(t, err)
				var names []string
				for _, c := range m {
					names = append(names, c.Name)
				}
				require.Truef(t, slices.Equal(names, harnessScenarios), "harness wrote captures %v, want %v", names, harnessScenarios)
				o := output{build: b.String(), hashes: map[string][32]byte{"manifest": sha256.Sum256(text)}}
				for _, c := range m {
					t.Run(c.Name, func(t *testing.T) {
						path := filepath.Join(dir, c.File)
						data, err := os.ReadFile(path)
						require.NoError(t, err)
						o.hashes[c.File] = sha256.Sum256(data)
						checkAgreement(t, path, c)
					})
				}
				outCh <- o
			})
		}
	})
	close(outCh)
	for o := range outCh {
		outputs = append(outputs, o)
	}
	// Integer code has one meaning: every compiler, standard and
	// sanitizer must write the same bytes.
	for _, o := range outputs[min(1, len(outputs)):] {
		for name, h := range outputs[0].hashes {
			assert.Equalf(t, h, o.hashes[name], "%s: %s differs from %s's", o.build, name, outputs[0].build)
		}
	}
}

// TestRecorderAgreement runs every build of the harness as kernels that
// write through cycleabi::BasicRecorder (--recorder) and as kernels that
// write through InitSlot and AppendRecord: every capture and the manifest
// must be the same bytes both ways, and the first build's recorder
// captures are held to their manifest by every Go reader and validate
// finds no error in them, with the manifest's record and drop counts.
func TestRecorderAgreement(t *testing.T) {
	for i, b := range harnessBuilds(t) {
		t.Run(b.String(), func(t *testing.T) {
			t.Parallel()
			exe := buildHarness(t, b)
			freeDir, freeText := runHarness(t, exe)
			dir, text := runHarnessWith(t, exe, []string{"--recorder"})
			require.Truef(t, bytes.Equal(text, freeText), "the --recorder manifest differs from the free functions': %s", golden.Diff(text, freeText))
			m, err := parseManifest(text)
			require.NoError(t, err)
			var names []string
			for _, c := range m {
				names = append(names, c.Name)
			}
			require.Truef(t, slices.Equal(names, harnessScenarios), "harness --recorder wrote captures %v, want %v", names, harnessScenarios)
			for _, c := range m {
				t.Run(c.Name, func(t *testing.T) {
					path := filepath.Join(dir, c.File)
					data, err := os.ReadFile(path)
					require.NoError(t, err)
					free, err := os.ReadFile(filepath.Join(freeDir, c.File))
					require.NoError(t, err)
					require.Truef(t, bytes.Equal(data, free), "%s written through Recorder differs from the free functions', %s", c.File, golden.Diff(data, free))
					if i > 0 {
						return
					}
					checkAgreement(t, path, c)
					planned := c.Capacities
					r, err := validate.CheckBytes(path, data, validate.Options{Layout: capture.Request{CubeSlots: c.CubeSlots, Capacities: &planned}, MaxFindings: -1})
					require.NoError(t, err)
					assert.Truef(t, r.OK(), "validate: %d errors; findings %v", r.Errors(), r.Findings)
					assert.Equal(t, c.Records, r.Records, "validate: records, the manifest's")
					assert.Equal(t, c.Dropped, r.Dropped, "validate: dropped, the manifest's")
				})
			}
		})
	}
}

// checkAgreement checks the capture file at path against its manifest
// entry with every Go reader: the manifest must agree with itself, the raw
// bytes must hold nothing the manifest does not list, and package capture
// must read back exactly the manifest, with the capacities the host planned
// and (where the buffer says them) with the capacities read from the
// buffer.
func checkAgreement(t *testing.T, path string, m *manifestCapture) {
	t.Helper()
	require.NoError(t, m.check())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	layout, err := abi.NewLayout(m.CubeSlots, m.Capacities)
	require.NoError(t, err, "the manifest's layout")
	require.Equalf(t, m.Size, uint64(len(data)), "%s: bytes, manifest's size", path)
	require.Equalf(t, m.Size, layout.Size(), "%s: abi.Layout.Size, manifest's size", path)
	checkBytes(t, data, layout, m)

	planned := m.Capacities
	t.Run("capture/planned", func(t *testing.T) {
		c, err := capture.Open(path)
		require.NoError(t, err)
		defer c.Close()
		checkCapture(t, c, capture.Request{CubeSlots: m.CubeSlots, Capacities: &planned}, m)
	})
	if capacitiesReadable(m) {
		t.Run("capture/from-buffer", func(t *testing.T) {
			c, err := capture.FromBytes(path, data)
			require.NoError(t, err)
			checkCapture(t, c, capture.Request{CubeSlots: m.CubeSlots}, m)
		})
	}
	for _, d := range decoders {
		t.Run(d.name, func(t *testing.T) { d.check(t, path, data, m) })
	}
}

// decoder is a further Go decoder the agreement tests hold to the
// manifest.
type decoder struct {
	name  string
	check func(t *testing.T, path string, data []byte, m *manifestCapture)
}

// decoders lists them; package decode's is added by decode_test.go.
var decoders []decoder

// capacitiesReadable reports whether the buffer itself says the capacities:
// they are read from AIC slot 0 and AIV slot 0, so each must have been
// entered, or its region's capacity be 0 (an idle header reads 0).
func capacitiesReadable(m *manifestCapture) bool {
	return (m.Capacities.AIC == 0 || m.slot("AIC/0") != nil) && (m.Capacities.AIV == 0 || m.slot("AIV/0") != nil)
}

// checkBytes reads the buffer without any decoder: every slot the manifest
// does not list is all zero; a listed slot's header decodes to the
// manifest's, its padding is zero, its records are the manifest's and the
// bytes after them were never written.
func checkBytes(t *testing.T, data []byte, l abi.Layout, m *manifestCapture) {
	t.Helper()
	listed := 0
	for i := range l.NumSlots() {
		s := l.Slot(i)
		b := data[s.Offset : s.Offset+s.Stride()]
		ms := m.slot(s.String())
		if ms == nil {
			if j := slices.IndexFunc(b, func(c byte) bool { return c != 0 }); !assert.Equalf(t, -1, j, "%s was never entered but a byte of it is not zero", s) {
				t.Logf("%s: byte %#x (@%#x) is %#x", s, j, s.Offset+uint64(j), b[j])
			}
			continue
		}
		listed++
		assert.Equalf(t, s.Offset, ms.Offset, "%s: the harness's SlotOffset", s)
		h, err := abi.DecodeCoreHeader(b)
		require.NoError(t, err)
		assert.Equalf(t, ms.Header, h, "%s header:\n  buffer", s)
		for j, r := range ms.Records {
			got, err := abi.DecodeProfileRecord(b[abi.CoreHeaderSize+j*abi.ProfileRecordSize:])
			require.NoError(t, err)
			assert.Equalf(t, r, got, "%s record %d:\n  buffer", s, j)
		}
		rest := b[abi.CoreHeaderSize+len(ms.Records)*abi.ProfileRecordSize:]
		if j := slices.IndexFunc(rest, func(c byte) bool { return c != 0 }); !assert.Equalf(t, -1, j, "%s: a byte past its %d live records is not zero: the writer wrote past record_count", s, len(ms.Records)) {
			t.Logf("%s: byte %d past its %d live records is %#x", s, j, len(ms.Records), rest[j])
		}
	}
	assert.Equal(t, len(m.Slots), listed, "the manifest lists")
}

// decodedSlot is what a scan reports about one slot.
type decodedSlot struct {
	header  abi.CoreHeader
	live    bool
	records []abi.ProfileRecord
}

// checkCapture resolves the layout of c with opts, scans it and requires
// exactly the manifest: the layout, every live slot with its header and
// records in order, no other live slot, and the summary's counts and drops.
func checkCapture(t *testing.T, c *capture.Capture, opts capture.Request, m *manifestCapture) {
	t.Helper()
	l, err := layoutOf(c.Resolve(opts))
	require.NoError(t, err, "ResolveLayout")
	require.Equal(t, m.CubeSlots, l.CubeSlots, "layout cube slots, manifest")
	require.Equal(t, m.Capacities, l.Capacities, "layout capacities, manifest")
	require.Equal(t, m.Size, l.Size(), "layout size, manifest")
	slots := map[string]*decodedSlot{}
	var order []string
	sum, err := c.Scan(l, capture.ScanOptions{
		Record: func(s *capture.SlotScan, index int, off int64, r *abi.ProfileRecord) {
			d := slots[s.Slot.String()]
			if d == nil {
				d = &decodedSlot{}
				slots[s.Slot.String()] = d
			}
			assert.Equalf(t, len(d.records), index, "%s: record", s.Slot)
			assert.Equalf(t, int64(s.Slot.Offset)+abi.CoreHeaderSize+int64(index)*abi.ProfileRecordSize, off, "%s record %d at @", s.Slot, index)
			d.records = append(d.records, *r)
		},
		Slot: func(s *capture.SlotScan) {
			d := slots[s.Slot.String()]
			if d == nil {
				d = &decodedSlot{}
				slots[s.Slot.String()] = d
			}
			d.header, d.live = s.Header, s.Live
			if s.Live {
				order = append(order, s.Slot.String())
			}
		},
	})
	require.NoError(t, err, "Scan")
	var want []string
	for _, s := range m.Slots {
		want = append(want, s.Name)
	}
	assert.Truef(t, slices.Equal(order, want), "live slots in buffer order:\n  decoded  %v\n  manifest %v", order, want)
	for _, ms := range m.Slots {
		d := slots[ms.Name]
		if d == nil {
			continue // reported above
		}
		assert.Equalf(t, ms.Header, d.header, "%s header: manifest, decoded", ms.Name)
		if !assert.Truef(t, slices.Equal(d.records, ms.Records), "%s records differ", ms.Name) {
			t.Log(diffRecords(d.records, ms.Records))
		}
	}
	assert.Equal(t, m.Records, sum.Records, "summary records, manifest")
	assert.Equal(t, m.Dropped, sum.Dropped, "summary dropped, manifest")
	var active []string
	for _, a := range sum.Active {
		active = append(active, a.Slot.String())
		if ms := m.slot(a.Slot.String()); ms != nil {
			assert.Equalf(t, len(ms.Records), a.Count, "%s summary count, manifest", a.Slot)
			assert.Equalf(t, ms.Header.DroppedCount, a.Dropped, "%s summary dropped, manifest", a.Slot)
			assert.Equalf(t, ms.Header.EntryCycle, a.EntryCycle, "%s summary entry cycle, manifest", a.Slot)
		}

	}
	var wantActive []string
	for _, s := range m.Slots {
		if len(s.Records) > 0 {
			wantActive = append(wantActive, s.Name)
		}
	}
	assert.Truef(t, slices.Equal(active, wantActive), "slots with records: decoded %v, manifest %v", active, wantActive)
}

// diffRecords renders the first differences between two record lists.
func diffRecords(got, want []abi.ProfileRecord) string {
	var b bytes.Buffer
	shown := 0
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = fmt.Sprintf("%+v", got[i])
		}
		if i < len(want) {
			w = fmt.Sprintf("%+v", want[i])
		}
		if g != w {
			fmt.Fprintf(&b, "  record %d:\n    decoded  %s\n    manifest %s\n", i, g, w)
			if shown++; shown == 5 {
				b.WriteString("  ...\n")
				break
			}
		}
	}
	return b.String()
}
