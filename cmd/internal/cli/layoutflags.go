package cli

import (
	"fmt"
	"strings"

	"github.com/megakernel/cycleabi/capture"
	"github.com/megakernel/cycleabi/gen/go/abi"
	"github.com/megakernel/cycleabi/input"
	"github.com/megakernel/cycleabi/plan"
	"github.com/spf13/pflag"
)

// LayoutFlags are the flags that say what is known of a capture's layout;
// decode, validate and dump share them so all read a capture the same way.
// They only fill a capture.Request: capture.Resolve decides.
type LayoutFlags struct {
	cubeSlots  uint32
	capacities []capacityFlag // one per region of the schema, in buffer order
	PlanFile   string
	// Schedule is --plan's Schedule once request has parsed it: its task
	// table also gives decode's arrows and analyze's critical path.
	Schedule *plan.Schedule
}

// capacityFlag is the --<core type>-capacity flag of one region.
type capacityFlag struct {
	coreType abi.CoreType
	value    uint32
}

// CapacityFlagName is the flag that gives t's capacity: "aic-capacity",
// as plan's Flags name it.
var CapacityFlagName = plan.CapacityFlag

// Register adds the layout flags; planUsage is the command's help for
// --plan.
func (f *LayoutFlags) Register(fs *pflag.FlagSet, planUsage string) {
	fs.Uint32Var(&f.cubeSlots, "cube-slots", 0, fmt.Sprintf("cube slot count C of the buffer (at least %d); default: found from the capture", abi.MinCubeSlots))
	f.capacities = nil
	for _, r := range abi.Regions() {
		f.capacities = append(f.capacities, capacityFlag{coreType: r.CoreType})
	}
	var names []string
	for _, c := range f.capacities {
		names = append(names, "--"+CapacityFlagName(c.coreType))
	}
	for i := range f.capacities {
		c := &f.capacities[i]
		fs.Uint32Var(&c.value, CapacityFlagName(c.coreType), 0,
			fmt.Sprintf("host-planned %s record capacity (give all of %s, or none); default: found from the capture", c.coreType, strings.Join(names, ", ")))
	}
	fs.StringVar(&f.PlanFile, "plan", "", planUsage)
}

// Request turns the flags into a capture.Request, and plans --plan's
// schedule. fs tells which flags were set.
func (f *LayoutFlags) Request(fs *pflag.FlagSet) (capture.Request, error) {
	req := capture.Request{GivenBy: "the flags"}
	if fs.Changed("cube-slots") {
		if err := capture.CheckCubeSlots(f.cubeSlots); err != nil {
			return req, input.WordRequest(err)
		}
		req.CubeSlots = f.cubeSlots
	}
	var given, missing []string
	var caps abi.Capacities
	for _, c := range f.capacities {
		name := "--" + CapacityFlagName(c.coreType)
		if fs.Changed(CapacityFlagName(c.coreType)) {
			given = append(given, name)
			caps.Set(c.coreType, c.value)
		} else {
			missing = append(missing, name)
		}
	}
	if len(given) > 0 && len(missing) > 0 {
		return req, fmt.Errorf("%s given without %s: the capacities are given together (the host plan) or not at all (found from the capture)",
			strings.Join(given, ", "), strings.Join(missing, ", "))
	}
	if len(given) > 0 {
		req.Capacities = &caps
	}
	if f.PlanFile != "" {
		s, p, err := loadPlan(f.PlanFile)
		if err != nil {
			return req, err
		}
		f.Schedule, req.Plan = s, p
	}
	return req, input.WordRequest(req.Check())
}

// loadPlan parses and plans the schedule of --plan.
func loadPlan(path string) (*plan.Schedule, *capture.Plan, error) {
	s, err := plan.ParseFile(path)
	if err != nil {
		if what := input.Misgiven(path, "--plan"); what != "" {
			return nil, nil, fmt.Errorf("--plan %s is not a schedule: %s", path, what)
		}
		return nil, nil, fmt.Errorf("--plan: %w", err)
	}
	r, err := plan.Plan(s)
	if err != nil {
		return nil, nil, fmt.Errorf("--plan %s: %w", path, err)
	}
	// Checked: what reads the capture against it says no line of it.
	s.DropText()
	return s, &capture.Plan{Name: path, CubeSlots: r.CubeSlotCount, Capacities: r.Capacities(), WorkerOn: plan.Assign(s, r).WorkerOn}, nil
}

// HelpText fills in what a command's help says of the schema, so the help
// follows it: {record size} is the record's size in bytes ("32"), {core
// types} the regions' core types ("AIC and AIV"), {capacity flags} the
// regions' capacity flags ("--aic-capacity with --aiv-capacity"), and
// {capacity args V...} those flags with the values V in order, the last
// value for every region past them ("--aic-capacity 32 --aiv-capacity 48").
func HelpText(s string) string {
	var types, flags []string
	for _, r := range abi.Regions() {
		types = append(types, r.CoreType.String())
		flags = append(flags, "--"+CapacityFlagName(r.CoreType))
	}
	s = strings.NewReplacer(
		"{record size}", fmt.Sprint(abi.ProfileRecordSize),
		"{core types}", JoinLast(types, " and "),
		"{capacity flags}", JoinLast(flags, " with "),
	).Replace(s)
	for {
		i := strings.Index(s, "{capacity args ")
		if i < 0 {
			return s
		}
		n := strings.IndexByte(s[i:], '}')
		if n < 0 {
			return s // not a placeholder: TestHelpFollowsSchema finds it
		}
		values := strings.Fields(s[i+len("{capacity args ") : i+n])
		if len(values) == 0 {
			return s
		}
		var args []string
		for k, f := range flags {
			args = append(args, f, values[min(k, len(values)-1)])
		}
		s = s[:i] + strings.Join(args, " ") + s[i+n+1:]
	}
}

// JoinLast joins words with ", ", the last two with last: "a, b and c".
func JoinLast(words []string, last string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + last + words[len(words)-1]
}

// LayoutFlagsGiven reports whether a flag that states a capture's layout
// (--cube-slots, a capacity flag) was set.
func LayoutFlagsGiven(changed func(string) bool, f *LayoutFlags) bool {
	if changed("cube-slots") {
		return true
	}
	for _, c := range f.capacities {
		if changed(CapacityFlagName(c.coreType)) {
			return true
		}
	}
	return false
}

// LayoutPhrase renders a resolved layout for decode's summary: "24 cube
// slots, AIC capacity 64, AIV capacity 64 (found: ...)".
func LayoutPhrase(res *capture.Resolved) string {
	return res.Layout.String() + " (" + res.How + ")"
}
