package cli

import (
	"errors"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/dump"
	"github.com/megakernel/cycleabi/input"
	"github.com/spf13/cobra"
)

func newDumpCmd() *cobra.Command {
	var (
		layout    LayoutFlags
		slot      string
		records   int
		family    FamilyFlags
		namesFile string
	)
	cmd := &cobra.Command{
		Use:   "dump CAPTURE [flags]",
		Short: "Show a capture's bytes field by field",
		Long: HelpText(`dump prints a capture (a raw buffer, or a NumPy .npy file) the way
flatc --annotate shows a FlatBuffer: for every field of each slot's header
and of its first records, the file offset, the raw bytes, the schema's field
name and type, the decoded value and what it means (core type, descriptor
name, task number, owner; with --names, the names decode gives descriptors
and task stages). validate's findings are shown under the fields
they concern ("^ error slot-identity: ..."). Runs of unused slots (all-zero
headers) are folded into one line ("AIC/4..AIC/23 idle").

The layout is found as decode and validate find it: from the capture
itself unless --cube-slots, {capacity flags}, or --plan
say otherwise; the header line says how. When it cannot be resolved, dump
shows the problem and the first header, and exits 1.

Exit status: 0 when the capture was shown (whatever it holds), 1 when its
layout cannot be resolved, 2 for usage or I/O errors.`),
		Example: HelpText(`  cycleabi dump examples/moe_layer.bin | less
  cycleabi dump capture.npy --slot AIV/3 --records 100
  cycleabi dump capture.bin --records 0 {capacity args 80}`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return Usage(errors.New("dump takes one CAPTURE"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := layout.Request(cmd.Flags())
			if err != nil {
				return Usage(err)
			}
			fam, err := family.Resolve("")
			if err != nil {
				return Usage(err)
			}
			names, err := input.LoadNames(namesFile)
			if err != nil {
				return err
			}
			c, err := capture.Open(args[0])
			if err != nil {
				return input.WordRequest(err)
			}
			defer c.Close()
			err = dump.Write(cmd.OutOrStdout(), c, dump.Options{Layout: req, Slot: slot, Records: records, Family: fam, Names: names})
			switch {
			case err == nil:
				return nil
			case errors.Is(err, dump.ErrNoLayout):
				return Silent(ExitInvalid) // the problem is in the dump
			}
			return input.WordRequest(err)
		},
	}
	fs := cmd.Flags()
	layout.Register(fs, "schedule (YAML or JSON) whose host plan the capture is shown against, as for validate")
	fs.StringVar(&slot, "slot", "", "show only this slot (AIC/3, AIV/17), even when unused")
	fs.IntVar(&records, "records", dump.DefaultRecords, "records shown per slot; -1 shows them all")
	family.Register(fs, "MegaKernel", "")
	RegisterNames(fs, &namesFile)
	return cmd
}
