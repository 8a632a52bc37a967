package main

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/spf13/pflag"
)

// layoutFlags are the flags that say how to find a capture's layout; decode
// and validate share them so both read a capture the same way.
type layoutFlags struct {
	cubeSlots   uint32
	aicCapacity uint32
	aivCapacity uint32
	planFile    string
}

// register adds the layout flags; planUsage is the command's help for
// --plan.
func (f *layoutFlags) register(fs *pflag.FlagSet, planUsage string) {
	fs.Uint32Var(&f.cubeSlots, "cube-slots", abi.MinCubeSlots, fmt.Sprintf("AIC slot count C of the buffer (AIV has 2C); at least %d", abi.MinCubeSlots))
	fs.Uint32Var(&f.aicCapacity, "aic-capacity", 0, "host-planned AIC record capacity (with --aiv-capacity); without both, read from the buffer")
	fs.Uint32Var(&f.aivCapacity, "aiv-capacity", 0, "host-planned AIV record capacity (with --aic-capacity)")
	fs.StringVar(&f.planFile, "plan", "", planUsage)
}

// options turns the flags into capture.LayoutOptions, and loads the host
// plan of --plan (nil without it): its cube slot count is the layout's
// unless --cube-slots is given, and its capacities stand in for an unused
// AIC/0 or AIV/0 header. fs tells which flags were set.
func (f *layoutFlags) options(fs *pflag.FlagSet) (capture.LayoutOptions, *capture.Plan, error) {
	o, err := f.given(fs)
	if err != nil || f.planFile == "" {
		return o, nil, err
	}
	p, err := loadPlan(f.planFile)
	if err != nil {
		return o, nil, err
	}
	if !fs.Changed("cube-slots") {
		o.CubeSlots = 0 // the plan's
	}
	return o.WithPlan(p), p, nil
}

// given turns the flags other than --plan into capture.LayoutOptions.
func (f *layoutFlags) given(fs *pflag.FlagSet) (capture.LayoutOptions, error) {
	o := capture.LayoutOptions{CubeSlots: f.cubeSlots}
	if f.cubeSlots < abi.MinCubeSlots {
		return o, fmt.Errorf("--cube-slots %d is below the schema's minimum %d", f.cubeSlots, abi.MinCubeSlots)
	}
	aic, aiv := fs.Changed("aic-capacity"), fs.Changed("aiv-capacity")
	if aic != aiv {
		return o, errors.New("--aic-capacity and --aiv-capacity are given together (the host plan) or not at all (read from the buffer)")
	}
	if aic {
		caps := abi.Capacities{AIC: f.aicCapacity, AIV: f.aivCapacity}
		for _, c := range []struct {
			flag  string
			value uint32
		}{{"--aic-capacity", caps.AIC}, {"--aiv-capacity", caps.AIV}} {
			if err := abi.CheckCapacity(uint64(c.value)); err != nil {
				return o, fmt.Errorf("%s %d: %w", c.flag, c.value, err)
			}
		}
		o.Capacities = &caps
	}
	return o, nil
}

// exitFor maps an error from opening or reading a capture to an exit code:
// a capture that breaks the ABI is invalid (1); anything else, such as a
// missing file, is an I/O error (2).
func exitFor(err error) error {
	var p *capture.Problem
	if errors.As(err, &p) {
		return invalid(err)
	}
	return usage(err)
}

// loadPlan plans a schedule for --plan.
func loadPlan(path string) (*capture.Plan, error) {
	s, err := plan.ParseFile(path)
	if err != nil {
		return nil, fmt.Errorf("--plan: %w", err)
	}
	r, err := plan.Plan(s)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", path, err)
	}
	p := &capture.Plan{Name: path, CubeSlots: r.CubeSlotCount}
	p.Capacities.AIC, p.Capacities.AIV = r.AICRecordCapacity, r.AIVRecordCapacity
	return p, nil
}
