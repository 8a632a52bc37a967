package agreement_test

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/megakernel/cycleabi/gen/go/abi"
)

// manifest is what the harness says it wrote: one entry per capture, in the
// order it printed them. The format is described in cxx/harness.cpp.
type manifest []*manifestCapture

// manifestCapture is one capture's block of the manifest.
type manifestCapture struct {
	Name       string
	File       string
	CubeSlots  uint32
	Capacities abi.Capacities
	Size       uint64
	// Slots are the slots a core entered, in buffer order.
	Slots []*manifestSlot
	// Totals as the harness printed them.
	LiveSlots, Records, Dropped uint64
}

// manifestSlot is one entered slot: its header as the harness's model says
// it must read, and its live records in index order.
type manifestSlot struct {
	Name    string // "AIC/3"
	Offset  uint64
	Header  abi.CoreHeader
	Records []abi.ProfileRecord
}

// slot returns the manifest's entry for the slot named name ("AIV/17").
func (c *manifestCapture) slot(name string) *manifestSlot {
	for _, s := range c.Slots {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// capture returns the block of the capture named name, or nil.
func (m manifest) capture(name string) *manifestCapture {
	for _, c := range m {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// fields parses "key=value" words into numbers, requiring exactly keys.
func fields(words []string, keys ...string) (map[string]uint64, error) {
	if len(words) != len(keys) {
		return nil, fmt.Errorf("want %d fields (%s), have %d", len(keys), strings.Join(keys, " "), len(words))
	}
	out := make(map[string]uint64, len(keys))
	for i, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k != keys[i] {
			return nil, fmt.Errorf("field %d is %q, want %s=N", i+1, w, keys[i])
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		out[k] = n
	}
	return out, nil
}

func u32(m map[string]uint64, key string) (uint32, error) {
	v := m[key]
	if v > 0xFFFFFFFF {
		return 0, fmt.Errorf("%s=%d does not fit in 32 bits", key, v)
	}
	return uint32(v), nil
}

// parseManifest reads the harness's manifest. Every line must be one the
// format has, in the order it has them; anything else is an error naming
// the line.
func parseManifest(text []byte) (manifest, error) {
	var (
		m    manifest
		cur  *manifestCapture
		slot *manifestSlot
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		words := strings.Fields(sc.Text())
		if len(words) == 0 {
			return nil, fmt.Errorf("manifest line %d: empty", line)
		}
		err := func() error {
			if words[0] != "capture" && cur == nil {
				return fmt.Errorf("%s outside a capture block", words[0])
			}
			switch words[0] {
			case "capture":
				if cur != nil {
					return fmt.Errorf("capture %s inside capture %s", strings.Join(words[1:], " "), cur.Name)
				}
				if len(words) != 2 {
					return fmt.Errorf("want: capture NAME")
				}
				cur, slot = &manifestCapture{Name: words[1]}, nil
			case "file":
				if len(words) != 2 {
					return fmt.Errorf("want: file NAME")
				}
				cur.File = words[1]
			case "layout":
				f, err := fields(words[1:], "cube_slots", "aic_capacity", "aiv_capacity", "size")
				if err != nil {
					return err
				}
				if cur.CubeSlots, err = u32(f, "cube_slots"); err != nil {
					return err
				}
				if cur.Capacities.AIC, err = u32(f, "aic_capacity"); err != nil {
					return err
				}
				if cur.Capacities.AIV, err = u32(f, "aiv_capacity"); err != nil {
					return err
				}
				cur.Size = f["size"]
			case "slot":
				if len(words) < 2 {
					return fmt.Errorf("want: slot NAME fields")
				}
				f, err := fields(words[2:], "offset", "entry_cycle", "record_count", "dropped_count", "core_type",
					"block_id", "record_capacity", "reserved")
				if err != nil {
					return err
				}
				slot = &manifestSlot{Name: words[1], Offset: f["offset"]}
				h := &slot.Header
				h.EntryCycle = f["entry_cycle"]
				var ct uint32
				for key, dst := range map[string]*uint32{"record_count": &h.RecordCount, "dropped_count": &h.DroppedCount,
					"core_type": &ct, "block_id": &h.BlockID, "record_capacity": &h.RecordCapacity, "reserved": &h.Reserved} {
					if *dst, err = u32(f, key); err != nil {
						return err
					}
				}
				h.CoreType = abi.CoreType(ct)
				cur.Slots = append(cur.Slots, slot)
			case "record":
				if slot == nil || len(words) < 3 || words[1] != slot.Name {
					return fmt.Errorf("record not after its slot line")
				}
				if words[2] != strconv.Itoa(len(slot.Records)) {
					return fmt.Errorf("record index %s, want %d", words[2], len(slot.Records))
				}
				f, err := fields(words[3:], "start_cycle", "end_cycle", "desc_id", "task_id", "stage_task_index", "owner_id")
				if err != nil {
					return err
				}
				r := abi.ProfileRecord{StartCycle: f["start_cycle"], EndCycle: f["end_cycle"]}
				for key, dst := range map[string]*uint32{"desc_id": &r.DescID, "task_id": &r.TaskID,
					"stage_task_index": &r.StageTaskIndex, "owner_id": &r.OwnerID} {
					if *dst, err = u32(f, key); err != nil {
						return err
					}
				}
				slot.Records = append(slot.Records, r)
			case "totals":
				f, err := fields(words[1:], "live_slots", "records", "dropped")
				if err != nil {
					return err
				}
				cur.LiveSlots, cur.Records, cur.Dropped = f["live_slots"], f["records"], f["dropped"]
			case "end":
				if cur.File == "" || cur.CubeSlots == 0 {
					return fmt.Errorf("capture %s has no file or layout line", cur.Name)
				}
				m = append(m, cur)
				cur, slot = nil, nil
			default:
				return fmt.Errorf("unknown line kind %q", words[0])
			}
			return nil
		}()
		if err != nil {
			return nil, fmt.Errorf("manifest line %d: %v", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("manifest: capture %s has no end line", cur.Name)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("manifest: no captures")
	}
	return m, nil
}

// check verifies that the manifest agrees with itself: every slot's
// record_count is its record lines, the totals are the sums, and every
// slot's header names the slot. A harness that printed an inconsistent
// manifest would make every later comparison meaningless.
func (c *manifestCapture) check() error {
	var records, dropped uint64
	for _, s := range c.Slots {
		if int(s.Header.RecordCount) != len(s.Records) {
			return fmt.Errorf("%s %s: record_count=%d but %d record lines", c.Name, s.Name, s.Header.RecordCount, len(s.Records))
		}
		if want := fmt.Sprintf("%s/%d", s.Header.CoreType, s.Header.BlockID); want != s.Name {
			return fmt.Errorf("%s %s: header names %s", c.Name, s.Name, want)
		}
		records += uint64(len(s.Records))
		dropped += uint64(s.Header.DroppedCount)
	}
	if records != c.Records || dropped != c.Dropped || uint64(len(c.Slots)) != c.LiveSlots {
		return fmt.Errorf("%s: totals live_slots=%d records=%d dropped=%d, but the slot lines add up to %d, %d, %d",
			c.Name, c.LiveSlots, c.Records, c.Dropped, len(c.Slots), records, dropped)
	}
	return nil
}
