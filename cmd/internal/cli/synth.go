package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/internal/outfile"
	"github.com/megakernel/cycleabi/plan"
	"github.com/megakernel/cycleabi/synth"
	"github.com/spf13/cobra"
)

func newSynthCmd() *cobra.Command {
	var (
		out         string
		format      string
		opts        synth.Options
		waitTimeout uint64
	)
	cmd := &cobra.Command{
		Use:   "synth SCHEDULE -o CAPTURE",
		Short: "Simulate the device writing a capture for a task schedule",
		Long: `synth plans the buffer for a task schedule (see 'cycleabi plan --help'), then
simulates the MegaKernel writing it: every core that enters writes its
header, and each worker runs its tasks in order, appending a wait, compute
and trigger record per task under the device's rules (a record is written
when the slot has room, otherwise counted as dropped).

Timings are plausible system-counter cycles (50 MHz): Cube matmuls take tens
of microseconds, vector stages a few, communication in between, with jitter
drawn from --seed. An event fires when every scheduled task that triggers it
has finished; a task waiting on it starts just after. The same schedule and
seed always give the same bytes.

Faults for testing the tools downstream:
  --capacity-scale F  scale the planned capacities by F, rounded down to a
                      multiple of 16 (0.8: the busiest workers drop records)
  --idle-cores N      N workers (chosen by the seed) never enter the kernel:
                      their slots stay zero; waits on their events time out

A wait that can never end (an event nobody triggers, a cycle of waits) is an
error naming the task, unless --wait-timeout gives the cycles after which a
waiting core gives up (with --idle-cores it defaults to 50000, 1 ms).

The capture is written as raw bytes (--format bin) or as a NumPy .npy file
of uint8 (--format npy; the default when CAPTURE ends in .npy), atomically:
to a temporary file beside CAPTURE, renamed over it once complete, so an
existing file stays as it was until then. -o - writes to stdout (the
summary then goes to stderr); a device or named pipe is written in place.
CAPTURE may not be the schedule itself. synth prints the flags that tell
decode and validate the layout it used.`,
		Example: `  cycleabi synth examples/moe_layer.yaml -o moe.bin
  cycleabi synth examples/moe_layer.yaml --capacity-scale 0.8 --seed 1 -o examples/moe_layer.bin
  cycleabi synth examples/aiv_pipeline.yaml --idle-cores 2 -o pipeline.npy`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return Usage(errors.New("-o CAPTURE is required"))
			}
			f := capture.Raw
			switch {
			case format != "":
				var ok bool
				if f, ok = captureFormats[format]; !ok {
					return Usage(fmt.Errorf("--format must be bin or npy, got %q", format))
				}
			case strings.EqualFold(filepath.Ext(out), ".npy"):
				f = capture.NPY
			}
			if sc := opts.CapacityScale; cmd.Flags().Changed("capacity-scale") && !(sc > 0 && !math.IsInf(sc, 1)) {
				return Usage(fmt.Errorf("--capacity-scale must be positive, got %v", opts.CapacityScale))
			}
			if opts.IdleCores < 0 {
				return Usage(fmt.Errorf("--idle-cores must be >= 0, got %d", opts.IdleCores))
			}
			if waitTimeout > synth.MaxWaitTimeout {
				return Usage(fmt.Errorf("--wait-timeout must be at most %d cycles, got %d", uint64(synth.MaxWaitTimeout), waitTimeout))
			}
			opts.WaitTimeout = waitTimeout
			if opts.IdleCores > 0 && !cmd.Flags().Changed("wait-timeout") {
				opts.WaitTimeout = synth.DefaultWaitTimeout
			}

			if err := outfile.SameFile(out, args[0]); err != nil {
				return Usage(err)
			}
			s, err := plan.ParseFile(args[0])
			if err != nil {
				return scheduleError(err)
			}
			c, err := synth.Run(s, opts)
			if err != nil {
				return Invalid(err)
			}
			if err := writeCaptureTo(out, cmd.OutOrStdout(), c.Buffer, f); err != nil {
				return Usage(err)
			}
			w := cmd.OutOrStdout()
			if out == outfile.Stdout {
				w = cmd.ErrOrStderr() // stdout holds the capture
			}
			fmt.Fprintf(w, "wrote %s (%s, %d bytes): %d records written, %d dropped, %d of %d slots entered\n",
				out, formatFlag(f), len(c.Buffer), c.Records(), c.Dropped(), entered(c), len(c.Slots))
			fmt.Fprintf(w, "decode flags: %s\n", plan.LayoutFlags(c.Layout.CubeSlots, c.Layout.Capacities))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "output", "o", "", "capture file to write (required); \"-\" for stdout")
	fl.StringVar(&format, "format", "", "capture format: bin (raw bytes) or npy (default: npy when CAPTURE ends in .npy, else bin)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "random seed for timings and idle cores")
	fl.Float64Var(&opts.CapacityScale, "capacity-scale", 0, "scale the planned capacities by `F`, rounded down to a multiple of 16")
	fl.IntVar(&opts.IdleCores, "idle-cores", 0, "number of workers that never enter the kernel")
	fl.Uint64Var(&waitTimeout, "wait-timeout", 0, "`cycles` after which a wait that can never end gives up (0: such a wait is an error)")
	fl.Uint64Var(&opts.MaxBufferBytes, "max-bytes", synth.DefaultMaxBufferBytes, "refuse to simulate a buffer larger than this many bytes")
	return cmd
}

// captureFormats maps --format's values to the capture formats: "bin" is
// capture.Raw (what tensor.numpy().tofile() writes).
var captureFormats = map[string]capture.Format{"bin": capture.Raw, "npy": capture.NPY}

// formatFlag is the --format value of f.
func formatFlag(f capture.Format) string {
	for name, g := range captureFormats {
		if g == f {
			return name
		}
	}
	return f.String()
}

func entered(c *synth.Capture) int {
	n := 0
	for i := range c.Slots {
		if c.Slots[i].Entered {
			n++
		}
	}
	return n
}

// writeCaptureTo writes buffer to path ("-": stdout) in format f, whole or
// not at all, as capture.WriteFile does.
func writeCaptureTo(path string, stdout io.Writer, buffer []byte, f capture.Format) error {
	out, err := outfile.CreateStdout(path, stdout)
	if err != nil {
		return err
	}
	if err := capture.Write(out, buffer, f); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}
