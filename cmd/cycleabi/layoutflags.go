package main

import (
	"errors"
	"fmt"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/spf13/pflag"
)

// layoutFlags are the flags that say how to find a capture's layout; decode
// and validate share them so both read a capture the same way.
type layoutFlags struct {
	cubeSlots   uint32
	aicCapacity uint32
	aivCapacity uint32
}

func (f *layoutFlags) register(fs *pflag.FlagSet) {
	fs.Uint32Var(&f.cubeSlots, "cube-slots", abi.MinCubeSlots, fmt.Sprintf("AIC slot count C of the buffer (AIV has 2C); at least %d", abi.MinCubeSlots))
	fs.Uint32Var(&f.aicCapacity, "aic-capacity", 0, "host-planned AIC record capacity (with --aiv-capacity); without both, read from the buffer")
	fs.Uint32Var(&f.aivCapacity, "aiv-capacity", 0, "host-planned AIV record capacity (with --aic-capacity)")
}

// options turns the flags into capture.LayoutOptions; fs tells which were set.
func (f *layoutFlags) options(fs *pflag.FlagSet) (capture.LayoutOptions, error) {
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
