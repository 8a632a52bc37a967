package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/plan"
	"github.com/spf13/cobra"
)

func newPlanCmd() *cobra.Command {
	var (
		format string
		strict bool
	)
	cmd := &cobra.Command{
		Use:   "plan SCHEDULE",
		Short: "Size the profiling buffer for a task schedule",
		Long: `plan reads a task schedule (YAML or JSON) and prints what the profiling
buffer needs: the records the busiest AIC and AIV worker write, the record
capacities rounded up to a multiple of 16, the cube slot count, the buffer
size in bytes, and the flags that tell decode and validate this layout.

A schedule:

  mode: event_driven          # or aiv_pipeline (default event_driven)
  num_workers: 48             # event_driven: even, >= 0; aiv_pipeline: > 0
  vector_worker_stride: 2     # AIV workers = num_workers / stride; default 2
  tasks:                      # the task table; the list index is the task id
    - {task_type: MatMul, dependent_event: 3, trigger_event: 4}
    - {task_type: 102}        # by TaskType name or number; absent event = none
  cube_task_indices: [0]      # the ordered queue dealt round-robin to AIC workers
  vector_task_indices: [1]    # the ordered queue dealt round-robin to AIV workers
  kernel_family: MegaMoe      # optional: the task-type table names are read in
  replica_gradients: 6        # optional: kernel-gradients mode's owned replica gradients

A task_type name is read in kernel_family's table (under MegaMoe,
ShmemGetMem is 107), or the schema's TaskType enum without one (141).

In kernel-gradients mode (replica_gradients > 0) every even AIV core runs no
queue task and writes one ReplicaW2Return record per owned replica gradient;
the AIV capacity holds them, and a warning says when upstream's planner, which
does not count them, would give a capacity that drops some.

A task writes a compute record, a wait record when it has a dependent_event,
and a trigger record unless it is a ShmemPutMemSignal; in an AIV pipeline
every AIV worker runs the whole vector queue, one compute record per task,
and no task may use events. 4294967295, the runtime's EVENT_INVALID_ID, is
no event. A task's profile_desc_id (the host's TaskDescC.profile_desc_id,
such as a kernel family's stage id: 0x10002 for MegaMoe's GMM1) is the
descriptor its compute record carries; synth writes it.

A task that waits on an event no scheduled task triggers is a warning (on
stderr, and under "warnings" in --format json), and the buffer is sized as
the reference sizes it: in a multi-rank kernel a peer rank sets such an
event (a peer's ShmemPutMemSignal signals it and writes no trigger record).
On a single rank the device would hang there; --strict makes it an error.

Every problem is reported in one run, as file:line:col and the YAML path of
the offending value (exit status 1). YAML text is read under a cap of 8 MiB
(CYCLEABI_MAX_YAML_BYTES raises it); plain JSON takes a fast path up to the
1 GiB cap on input files (CYCLEABI_MAX_INPUT_BYTES).`,
		Example: `  cycleabi plan examples/moe_layer.yaml
  cycleabi plan schedule.json --format json
  cycleabi validate capture.bin $(cycleabi plan schedule.yaml --format flags)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "flags" {
				return Usage(fmt.Errorf("--format must be text, json or flags, got %q", format))
			}
			read := plan.PlanFile
			if strict {
				read = plan.CheckFile
			}
			_, r, err := read(args[0])
			if err != nil {
				return scheduleError(err)
			}
			for _, w := range r.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "cycleabi: warning: %s\n", w)
			}
			out := cmd.OutOrStdout()
			switch format {
			case "json":
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			case "flags":
				_, err := fmt.Fprintln(out, r.Flags())
				return err
			}
			return printPlan(out, args[0], r)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, or flags (just the decode/validate flags)")
	cmd.Flags().BoolVar(&strict, "strict", false, "a wait on an event no scheduled task triggers is an error (exit 1), not a warning")
	return cmd
}

// scheduleError classifies an error from reading a schedule: a problem in
// its text is invalid input (exit 1); failing to read it is an I/O error.
func scheduleError(err error) error {
	var list *plan.ErrorList
	if errors.As(err, &list) {
		return Invalid(err)
	}
	return Usage(err)
}

func printPlan(w io.Writer, file string, r plan.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var counts, slots []string
	for _, reg := range abi.Regions() {
		counts = append(counts, fmt.Sprintf("%d %s", r.Region(reg.CoreType).Workers, reg.CoreType))
		slots = append(slots, fmt.Sprintf("%d %s", uint64(reg.SlotsPerCubeSlot)*uint64(r.CubeSlotCount), reg.CoreType))
	}
	workers := JoinLast(counts, " and ") + " workers"
	if vector := r.Region(plan.VectorCores); r.Mode == plan.AIVPipeline {
		workers = fmt.Sprintf("%d %s workers, each running the whole vector queue", vector.Workers, vector.CoreType)
		if vector.Workers == 0 {
			// The reference sizes the slots all the same (its
			// activeVectorWorkers is num_workers / stride).
			workers = fmt.Sprintf("no active %s worker (num_workers / vector_worker_stride is 0), slots sized for the whole vector queue", vector.CoreType)
		}
	}
	fmt.Fprintf(tw, "schedule\t%s (%s, num_workers %d: %s)\n", file, r.Mode, r.NumWorkers, workers)
	for _, reg := range abi.Regions() {
		p := r.Region(reg.CoreType)
		fmt.Fprintf(tw, "%s records\t%d required by the busiest worker, capacity %d per core\n", reg.CoreType, p.RequiredRecords, p.RecordCapacity)
	}
	if r.ReplicaW2Returns > 0 {
		fmt.Fprintf(tw, "replica records\t%d ReplicaW2Return records on each even %s core (kernel-gradients mode)\n", r.ReplicaW2Returns, plan.VectorCores)
	}
	fmt.Fprintf(tw, "cube slots\t%d (%s slots)\n", r.CubeSlotCount, strings.Join(slots, " + "))
	fmt.Fprintf(tw, "buffer size\t%d bytes (%s)\n", r.BufferSize, humanBytes(r.BufferSize))
	fmt.Fprintf(tw, "decode flags\t%s\n", r.Flags())
	return tw.Flush()
}

// humanBytes formats n in binary units ("1.5 MiB").
func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
