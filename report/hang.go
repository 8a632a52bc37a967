package report

import (
	"fmt"
	"strconv"

	"github.com/megakernel/cycleabi/analyze"
)

// stoppedCard is the summary's first card for a capture whose kernel
// stopped (analyze.Diagnosis): the root's task and what it is, or without
// a schedule the core that stopped first and a request for --plan.
func stoppedCard(dg *analyze.Diagnosis) card {
	c := card{Label: "kernel stopped", Class: "bad"}
	switch {
	case dg.NeedsPlan:
		first := dg.Cores[0]
		c.Value = first.Core
		c.Sub = clip("stopped inside a task, after "+first.LastRecord+"; give --plan SCHEDULE for the chain of waits", 140)
	case len(dg.Roots) == 0:
		c.Value = strconv.Itoa(len(dg.Cores)) + " cores"
		c.Sub = clip(dg.Summary, 140)
	default:
		r := dg.Roots[0]
		c.Value = "task " + strconv.FormatUint(uint64(r.Tasks[0].Task), 10)
		if r.Kind == analyze.RootWaitCycle {
			c.Value = fmt.Sprintf("cycle of %d", len(r.Tasks))
		}
		c.Sub = clip(r.Kind+": "+r.Message, 140)
		if len(dg.Roots) > 1 {
			c.Sub = clip(fmt.Sprintf("%d roots; the first, %s: %s", len(dg.Roots), r.Kind, r.Message), 140)
		}
	}
	return c
}

// stopped opens the page of one capture whose kernel stopped with its
// card and banners.
func (p *page) stopped(k *analyze.Rank) {
	if k.Diagnosis != nil {
		p.Cards = append(p.Cards, stoppedCard(k.Diagnosis))
		p.Banners = append(stoppedBanners(k), p.Banners...)
	}
}

// stoppedBanners say, for each capture whose kernel stopped, its
// diagnosis in full: the summary and each root.
func stoppedBanners(k *analyze.Rank) []string {
	dg := k.Diagnosis
	if dg == nil {
		return nil
	}
	out := []string{fmt.Sprintf("Rank %d (%s): %s.", k.Rank, k.Capture, dg.Summary)}
	if len(dg.Roots) < 2 {
		return out // the summary names the one root
	}
	for i, r := range dg.Roots {
		if i == analyze.MaxListed {
			out = append(out, fmt.Sprintf("… and %d more roots (cycleabi analyze --plan lists them).", len(dg.Roots)-i))
			break
		}
		out = append(out, fmt.Sprintf("Root %d (%s, %d blocked cores): %s.", i+1, r.Kind, r.BlockedCores, r.Message))
	}
	return out
}
