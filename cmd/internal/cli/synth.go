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

// synthLong is synth's --help.
const synthLong = `synth plans the buffer for a task schedule (see 'cycleabi plan --help'), then
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

Faults that hang the kernel, for testing 'cycleabi analyze --plan''s
diagnosis: the capture is what the device leaves when the launch times out,
only the records that finished; each core that cannot go on stays where it
is (exclusive with --wait-timeout):
  --stop-in-task ID   the core running task ID stops inside it: its wait is
                      recorded, its compute never finishes (an AIV
                      pipeline's worker 0 stops there)
  --skip-trigger ID   task ID never sends its trigger; its core goes on
  --starve-event E    event E needs one trigger more than the schedule's
                      tasks send, so it never fires
  --hang              a wait that can never end (a cycle of waits in the
                      schedule, an event no scheduled task triggers, a
                      trigger on an idle core) blocks its core for good
                      instead of being an error
The flags repeat; the summary names the cores that stopped or wait forever.

The capture is written as raw bytes (--format bin) or as a NumPy .npy file
of uint8 (--format npy; the default when CAPTURE ends in .npy), atomically:
to a temporary file beside CAPTURE, renamed over it once complete, so an
existing file stays as it was until then. -o - writes to stdout (the
summary then goes to stderr); a device or named pipe is written in place.
CAPTURE may not be the schedule itself. synth prints the flags that tell
decode and validate the layout it used.`

func newSynthCmd() *cobra.Command {
	var (
		out         string
		format      string
		opts        synth.Options
		waitTimeout uint64
		stopIn      []uint
		skip        []uint
		starve      []uint
	)
	cmd := &cobra.Command{
		Use:   "synth SCHEDULE -o CAPTURE",
		Short: "Simulate the device writing a capture for a task schedule",
		Long:  synthLong,
		Example: `  cycleabi synth examples/moe_layer.yaml -o moe.bin
  cycleabi synth examples/moe_layer.yaml --capacity-scale 0.8 --seed 1 -o examples/moe_layer.bin
  cycleabi synth examples/aiv_pipeline.yaml --idle-cores 2 -o pipeline.npy
  cycleabi synth examples/moe_layer.yaml --stop-in-task 100 -o hung.bin`,
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
			if err := faultFlags(&opts.Faults, stopIn, skip, starve); err != nil {
				return Usage(err)
			}
			hangs := opts.Faults.Hang || len(stopIn)+len(skip)+len(starve) > 0
			if hangs && waitTimeout != 0 {
				return Usage(errors.New("--wait-timeout ends the waits that --stop-in-task, --skip-trigger, --starve-event and --hang make endless: give one or the other"))
			}
			if opts.IdleCores > 0 && !hangs && !cmd.Flags().Changed("wait-timeout") {
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
			if hangs {
				printHang(w, c)
			}
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
	fl.UintSliceVar(&stopIn, "stop-in-task", nil, "the core running task `ID` stops inside it (repeatable)")
	fl.UintSliceVar(&skip, "skip-trigger", nil, "task `ID` never sends its trigger (repeatable)")
	fl.UintSliceVar(&starve, "starve-event", nil, "event `E` needs one trigger more than the schedule sends (repeatable)")
	fl.BoolVar(&opts.Faults.Hang, "hang", false, "a wait that can never end blocks its core for good instead of being an error")
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

// faultFlags fills f from the fault flags' values, each a task id or
// event (a u32; the event 0xFFFFFFFF means none).
func faultFlags(f *synth.Faults, stopIn, skip, starve []uint) error {
	for _, l := range []struct {
		flag string
		vals []uint
		to   func(uint32)
	}{
		{"--stop-in-task", stopIn, func(v uint32) { f.StopInTask = append(f.StopInTask, v) }},
		{"--skip-trigger", skip, func(v uint32) { f.SkipTrigger = append(f.SkipTrigger, v) }},
		{"--starve-event", starve, func(v uint32) { f.StarveEvents = append(f.StarveEvents, plan.EventID(v)) }},
	} {
		for _, v := range l.vals {
			if v >= math.MaxUint32 {
				return fmt.Errorf("%s must be below %d, got %d", l.flag, uint64(math.MaxUint32), v)
			}
			l.to(uint32(v))
		}
	}
	return nil
}

// printHang says where the hung kernel's cores stopped: those stopped
// inside a task, and how many wait forever.
func printHang(w io.Writer, c *synth.Capture) {
	var stopped []string
	blocked := 0
	for i := range c.Slots {
		m := &c.Slots[i]
		switch {
		case m.Stopped:
			stopped = append(stopped, fmt.Sprintf("%s inside task %d", m.Slot, m.NextTask))
		case m.Blocked:
			blocked++
		}
	}
	what := "stopped: none"
	if len(stopped) > 0 {
		what = "stopped: " + strings.Join(stopped, ", ")
	}
	fmt.Fprintf(w, "the kernel hangs: %s; %d core(s) wait forever\n", what, blocked)
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
