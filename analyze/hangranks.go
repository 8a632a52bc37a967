package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// StoppedSection is a section (a rank, or an invocation of a window)
// whose kernel stopped before its work was done (Rank.Diagnosis).
type StoppedSection struct {
	Rank       uint32 `json:"rank"`
	Invocation *int64 `json:"invocation_id,omitempty"`
	// StopCycle is when it stopped: the earliest end of the last record
	// of a core its diagnosis lists (the rank's EndCycle when none has
	// one). Ranks of one machine share the system counter, so the section
	// with the smallest StopCycle stopped first and the others, waiting on
	// it (a collective's ranks reach the collective after it stopped),
	// stopped after.
	StopCycle uint64 `json:"stop_cycle"`
	// Summary is its diagnosis' summary.
	Summary string `json:"summary"`
}

// stoppedSections lists the sections whose kernel stopped, the one that
// stopped first first (of equal StopCycle, in rank order).
func stoppedSections(ranks []*Rank) []StoppedSection {
	var out []StoppedSection
	for _, k := range ranks {
		dg := k.Diagnosis
		if dg == nil {
			continue
		}
		at := k.EndCycle
		for _, c := range dg.Cores {
			if c.LastEndCycle != 0 && c.LastEndCycle < at {
				at = c.LastEndCycle
			}
		}
		sec := sectionOf(k)
		out = append(out, StoppedSection{Rank: sec.Rank, Invocation: sec.Invocation, StopCycle: at, Summary: dg.Summary})
	}
	slices.SortStableFunc(out, func(a, b StoppedSection) int { return cmp.Compare(a.StopCycle, b.StopCycle) })
	return out
}

// StoppedFinding says which sections stopped, which first and why, and
// which stopped after it, with how much later; "" when none stopped.
func (x *CrossRank) StoppedFinding() string {
	if x == nil || len(x.Stopped) == 0 {
		return ""
	}
	noun := "ranks"
	if x.SlowestInvocation != nil {
		noun = "invocations"
	}
	first := x.Stopped[0]
	s := fmt.Sprintf("%d of %d %s stopped before their work was done; %s stopped first: %s",
		len(x.Stopped), len(x.Ranks), noun, first.section(), first.Summary)
	if len(x.Stopped) == 1 {
		return s
	}
	var after []string
	for i, o := range x.Stopped[1:] {
		if i == MaxNamed {
			after = append(after, fmt.Sprintf("%d more", len(x.Stopped)-1-i))
			break
		}
		after = append(after, fmt.Sprintf("%s (+%s cycles)", o.section(), GroupDigits(fmt.Sprint(o.StopCycle-first.StopCycle))))
	}
	return s + "; after it: " + strings.Join(after, ", ")
}

func (s *StoppedSection) section() Section { return Section{Rank: s.Rank, Invocation: s.Invocation} }
