// Command benchtable measures the rows of docs/performance.md side by
// side, in one run: for each row it writes the captures (benchgen), then
// runs the row's two commands alternately -runs times (so both see the same
// load on a shared machine) and prints the median wall time, CPU time
// (user+sys) of each and the ratio of the medians, and the peak RSS of one
// more run of each under GNU time.
//
//	go run ./decode/internal/benchgen/benchtable -cycleabi BIN [-base BIN] [-runs N] [-rows decode,ref,big,gz,perfetto,validate,ranks]
//
// scripts/bench-table.sh builds the binaries and runs it (make bench).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/megakernel/cycleabi/decode/internal/benchgen"
)

type sample struct{ wall, cpu time.Duration }

// cmd is one command of a pair.
type cmd struct {
	label string
	env   []string
	argv  []string
}

func (c cmd) run() (sample, error) {
	x := exec.Command(c.argv[0], c.argv[1:]...)
	x.Env = append(os.Environ(), c.env...)
	var stderr bytes.Buffer
	x.Stderr = &stderr
	t0 := time.Now()
	err := x.Run()
	wall := time.Since(t0)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(c.argv, " "), err, stderr.String())
	}
	ru := x.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu}, nil
}

// gnuTime measures peak RSS. The rusage of a command this program runs
// cannot: Go starts it with CLONE_VM|CLONE_VFORK, and Linux carries the
// peak RSS of the memory it shared (this program's, 5-30 MiB) over its
// execve into its ru_maxrss (a `true` run from a program holding 50 MiB
// shows 53 MiB). GNU time forks the command from a process of about 1 MiB.
const gnuTime = "/usr/bin/time"

// peakRSS runs c once under GNU time and returns its peak RSS in KiB.
func (c cmd) peakRSS() (int64, error) {
	f, err := os.CreateTemp("", "benchtable-rss-*")
	if err != nil {
		return 0, err
	}
	f.Close()
	defer os.Remove(f.Name())
	timed := c
	timed.argv = append([]string{gnuTime, "-f", "%M", "-o", f.Name()}, c.argv...)
	if _, err := timed.run(); err != nil {
		return 0, err
	}
	out, err := os.ReadFile(f.Name())
	if err != nil {
		return 0, err
	}
	var kib int64
	if _, err := fmt.Sscan(string(out), &kib); err != nil {
		return 0, fmt.Errorf("%s: reading its peak RSS from %q: %v", strings.Join(timed.argv, " "), out, err)
	}
	return kib, nil
}

// stats are the medians of a command's samples.
type stats struct {
	wall, cpu time.Duration
	rss       int64
}

func median[T int64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func medians(ss []sample) stats {
	var w, c []time.Duration
	for _, s := range ss {
		w, c = append(w, s.wall), append(c, s.cpu)
	}
	return stats{wall: median(w), cpu: median(c)}
}

// pair runs a and b alternately runs times. Without before, every other
// run starts with b, so that neither gains from going first or second;
// with it, before runs first each time (to make the file a cp copies,
// say: b then needs a's output), untimed, and a goes first. Then each
// runs once more under GNU time, for its peak RSS.
func pair(runs int, a, b cmd, before func() error) (stats, stats, error) {
	sa, sb, err := timePair(runs, a, b, before)
	if err != nil {
		return sa, sb, err
	}
	if before != nil {
		if err := before(); err != nil {
			return sa, sb, err
		}
	}
	if sa.rss, err = a.peakRSS(); err != nil {
		return sa, sb, err
	}
	sb.rss, err = b.peakRSS()
	return sa, sb, err
}

func timePair(runs int, a, b cmd, before func() error) (stats, stats, error) {
	var sa, sb []sample
	for i := range runs {
		if before != nil {
			if err := before(); err != nil {
				return stats{}, stats{}, err
			}
		}
		first, second := a, b
		if before == nil && i%2 == 1 {
			first, second = b, a
		}
		x, err := first.run()
		if err != nil {
			return stats{}, stats{}, err
		}
		y, err := second.run()
		if err != nil {
			return stats{}, stats{}, err
		}
		if before == nil && i%2 == 1 {
			x, y = y, x
		}
		sa, sb = append(sa, x), append(sb, y)
	}
	return medians(sa), medians(sb), nil
}

func show(s stats) string {
	return fmt.Sprintf("%.3f s (cpu %.3f s), %.1f MiB", s.wall.Seconds(), s.cpu.Seconds(), float64(s.rss)/1024)
}

// row prints a row; ratio formats the ratio of two times (a's over b's
// when over, else b's over a's), printed for wall and for CPU time.
func row(work string, a, b cmd, sa, sb stats, over bool, ratio, goal string) {
	r := func(x, y time.Duration) float64 {
		if over {
			return x.Seconds() / y.Seconds()
		}
		return y.Seconds() / x.Seconds()
	}
	text := fmt.Sprintf(ratio, r(sa.wall, sb.wall)) + fmt.Sprintf(" (cpu %.2f×)", r(sa.cpu, sb.cpu))
	fmt.Printf("| %s | %s: %s | %s: %s | %s | %s |\n", work, a.label, show(sa), b.label, show(sb), text, goal)
}

func main() {
	if _, err := os.Stat(gnuTime); err != nil {
		fail(fmt.Errorf("peak RSS is measured with GNU time, %s: %v (Debian: apt-get install time)", gnuTime, err))
	}
	bin := flag.String("cycleabi", "", "the cycleabi binary to measure")
	base := flag.String("base", "", "a cycleabi binary to compare the .json.gz row against (the tree before the speed work)")
	python := flag.String("python", "/usr/bin/python3", "Python with NumPy, for scripts/ref-decode.py")
	runs := flag.Int("runs", 5, "runs of each command per row")
	refRuns := flag.Int("ref-runs", 3, "runs of the reference decoder (tens of seconds each)")
	bigRecords := flag.Int("big-records", 31_250_000, "records of the big decode row's capture (about 2 GB)")
	dir := flag.String("dir", "", "directory for captures and traces (default: a new temporary one, removed at the end)")
	rowsFlag := flag.String("rows", "decode,ref,big,gz,perfetto,validate,ranks", "rows to measure")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: benchtable -cycleabi BIN [-base BIN] [-runs N] [-rows LIST]")
		os.Exit(2)
	}
	rows := map[string]bool{}
	for _, r := range strings.Split(*rowsFlag, ",") {
		rows[r] = true
	}
	tmp := *dir
	if tmp == "" {
		d, err := os.MkdirTemp("", "cycleabi-benchtable-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		tmp = d
	}
	if err := measure(*bin, *base, *python, *runs, *refRuns, *bigRecords, tmp, rows); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(1)
}

// capture writes a capture of spec to dir/name once and returns its path
// and decode flags.
func capture(dir, name string, spec benchgen.Spec) (string, []string, error) {
	path := filepath.Join(dir, name)
	flags, err := benchgen.WriteFile(path, spec)
	if err != nil {
		return "", nil, err
	}
	return path, strings.Fields(flags), nil
}

// removing returns a function that removes path if it is there.
// removing removes paths: the files a pair of commands writes, so that
// each run writes a new file (replacing a file costs the freeing of the
// old one's pages, tens of ms for a 163 MB trace, which a fair pair either
// both pay or neither).
func removing(paths ...string) func() error {
	return func() error {
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	}
}

func size(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return st.Size()
}

// bench is one run of the table: the programs, the run counts and the
// scratch folder.
type bench struct {
	bin, base, python string
	runs, refRuns     int
	tmp               string
}

// decode is cycleabi decode of capture, with its flags, to out.
func (b *bench) decode(capture string, flags []string, out string, extra ...string) cmd {
	argv := append([]string{b.bin, "decode", capture}, flags...)
	return cmd{label: "cycleabi decode", argv: append(append(argv, "-o", out), extra...)}
}

// measure prints the rows asked for, one stage of the table each.
func measure(bin, base, python string, runs, refRuns, bigRecords int, tmp string, rows map[string]bool) error {
	fmt.Printf("runs %d (reference %d), GOMAXPROCS unset unless said; medians: wall (cpu user+sys); peak RSS from one more run of each under GNU time\n\n", runs, refRuns)
	fmt.Println("| work | tool | against | ratio | goal |")
	fmt.Println("|---|---|---|---|---|")
	b := &bench{bin: bin, base: base, python: python, runs: runs, refRuns: refRuns, tmp: tmp}
	if rows["decode"] || rows["ref"] || rows["gz"] || rows["perfetto"] {
		if err := b.decode32(rows); err != nil {
			return err
		}
	}
	if rows["validate"] {
		if err := b.validate(); err != nil {
			return err
		}
	}
	if rows["ranks"] {
		if err := b.ranks(); err != nil {
			return err
		}
	}
	if rows["big"] && bigRecords > 0 {
		return b.big(bigRecords)
	}
	return nil
}

// decode32 is the rows of the 32 MB capture: decode to a file, against the
// reference, to .json.gz, to Perfetto.
func (b *bench) decode32(rows map[string]bool) error {
	b32, flags, err := capture(b.tmp, "b32.bin", benchgen.MB32)
	if err != nil {
		return err
	}
	defer os.Remove(b32)
	trace := filepath.Join(b.tmp, "b32.json")
	defer os.Remove(trace)
	dec := b.decode(b32, flags, trace)
	if rows["decode"] {
		if err := b.decodeFile(dec, trace); err != nil {
			return err
		}
	}
	if rows["ref"] {
		ref := cmd{label: "reference (scripts/ref-decode.py)", argv: []string{b.python, "scripts/ref-decode.py", b32, flags[3], flags[5]}}
		// The reference writes its trace to /dev/null: so does
		// decode here, like for like.
		sa, sb, err := pair(b.refRuns, b.decode(b32, flags, os.DevNull), ref, nil)
		if err != nil {
			return err
		}
		row("decode 32 MB → /dev/null vs the Python reference (→ /dev/null)", dec, ref, sa, sb,
			false, "%.0f× faster", "≥ 400×")
	}
	if rows["gz"] {
		if err := b.gzip(b32, flags, dec); err != nil {
			return err
		}
	}
	if rows["perfetto"] {
		return b.perfetto(b32, flags, dec, trace)
	}
	return nil
}

// decodeFile is decode to a file against cp and against a durable copy.
func (b *bench) decodeFile(dec cmd, trace string) error {
	cp := cmd{label: "cp trace.json", argv: []string{"cp", trace, trace + ".copy"}}
	if _, err := dec.run(); err != nil {
		return err
	}
	sa, sb, err := pair(b.runs, dec, cp, removing(trace, trace+".copy"))
	if err != nil {
		return err
	}
	row(fmt.Sprintf("decode 32 MB capture (%d records) → file (%d MB)", benchgen.MB32.Records, size(trace)>>20),
		dec, cp, sa, sb, true, "%.2f× cp", "≤ 1.5× cp")
	// decode syncs its output before the rename; cp does not.
	// The same copy made durable shows what the disk adds.
	dd := cmd{label: "dd conv=fsync", argv: []string{"dd", "if=" + trace, "of=" + trace + ".copy", "bs=1M", "conv=fsync", "status=none"}}
	sa, sb, err = pair(b.runs, dec, dd, removing(trace, trace+".copy"))
	if err != nil {
		return err
	}
	row("decode 32 MB → file vs a durable copy of its trace", dec, dd, sa, sb, true, "%.2f× the copy", "(no goal: the disk's share)")
	os.Remove(trace + ".copy")
	return nil
}

// gzip is decode to .json.gz, against the base binary and against JSON.
func (b *bench) gzip(b32 string, flags []string, dec cmd) error {
	gz := filepath.Join(b.tmp, "b32.json.gz")
	defer os.Remove(gz)
	dz := b.decode(b32, flags, gz)
	if b.base != "" {
		bz := filepath.Join(b.tmp, "b32.base.json.gz")
		old := cmd{label: "before", argv: append(append([]string{b.base, "decode", b32}, flags...), "-o", bz)}
		sa, sb, err := pair(b.runs, dz, old, nil)
		if err != nil {
			return err
		}
		row(fmt.Sprintf("decode 32 MB → .json.gz (%d bytes; before %d)", size(gz), size(bz)), dz, old, sa, sb,
			false, "%.2f× faster", "≥ 1.5× faster, same or smaller")
		if out, err := exec.Command("gzip", "-t", gz).CombinedOutput(); err != nil {
			return fmt.Errorf("gzip -t %s: %v %s", gz, err, out)
		}
	}
	sa, sb, err := pair(b.runs, dz, dec, nil)
	if err != nil {
		return err
	}
	row("decode 32 MB → .json.gz vs → .json", dz, dec, sa, sb, true, "%.2f× the time", "")
	return nil
}

// perfetto is the same capture as Perfetto protobuf and as JSON, both to
// files, one core (the Perfetto writer formats each capture on one
// goroutine).
func (b *bench) perfetto(b32 string, flags []string, dec cmd, trace string) error {
	pf := filepath.Join(b.tmp, "b32.pftrace")
	defer os.Remove(pf)
	one := []string{"GOMAXPROCS=1"}
	dp := b.decode(b32, flags, pf)
	dp.label, dp.env = "cycleabi decode --format perfetto", one
	dj := dec
	dj.label, dj.env = "cycleabi decode (JSON)", one
	sa, sb, err := pair(b.runs, dp, dj, nil)
	if err != nil {
		return err
	}
	row(fmt.Sprintf("decode 32 MB → .pftrace (%d bytes, %.2f%% of the JSON's %d), one core", size(pf), 100*float64(size(pf))/float64(size(trace)), size(trace)),
		dp, dj, sa, sb, true, "%.2f× the time", "≤ 25% of the size, ≤ 1× the time")
	return nil
}

// validate is validate of a clean capture and of one with warnings,
// against cat.
func (b *bench) validate() error {
	for _, warn := range []bool{true, false} {
		spec := benchgen.Spec{Records: 5_000_000, Seed: 1, Full: true, Warnings: warn}
		name, what := "clean.bin", "validate, clean %d MB capture (%d records)"
		if warn {
			name, what = "warn.bin", "validate, %d MB capture (%d records) with warnings"
		}
		path, _, err := capture(b.tmp, name, spec)
		if err != nil {
			return err
		}
		v := cmd{label: "cycleabi validate", argv: []string{b.bin, "validate", path}}
		cat := cmd{label: "cat", argv: []string{"cat", path}}
		sa, sb, err := pair(b.runs, v, cat, nil)
		if err != nil {
			return err
		}
		goal := "≤ 1.5× cat"
		if warn {
			goal = "≤ 2× cat"
		}
		row(fmt.Sprintf(what, size(path)/1e6, spec.Records), v, cat, sa, sb, true, "%.2f× cat", goal)
		os.Remove(path)
	}
	return nil
}

// ranks is 8 ranks in one decode on two cores against one.
func (b *bench) ranks() error {
	var paths []string
	var flags []string
	defer func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}()
	for r := range 8 {
		p, f, err := capture(b.tmp, fmt.Sprintf("rank%d.bin", r), benchgen.Spec{Records: 1_000_000, Unsorted: 1, Seed: uint64(r + 1)})
		if err != nil {
			return err
		}
		paths, flags = append(paths, p), f
	}
	argv := append(append(append([]string{b.bin, "decode"}, paths...), flags...), "-o", "/dev/null")
	two := cmd{label: "GOMAXPROCS=2", env: []string{"GOMAXPROCS=2"}, argv: argv}
	one := cmd{label: "GOMAXPROCS=1", env: []string{"GOMAXPROCS=1"}, argv: argv}
	sa, sb, err := pair(b.runs, two, one, nil)
	if err != nil {
		return err
	}
	row("8 ranks × 64 MB in one decode → /dev/null", two, one, sa, sb,
		false, "%.2f× on 2 cores vs 1", "≥ 1.6×")
	return nil
}

// big is decode of a capture of records records to a file, against cp.
func (b *bench) big(records int) error {
	spec := benchgen.Spec{Records: records, Unsorted: 1, Seed: 1}
	path, flags, err := capture(b.tmp, "big.bin", spec)
	if err != nil {
		return err
	}
	trace := filepath.Join(b.tmp, "big.json")
	defer func() {
		os.Remove(trace)
		os.Remove(trace + ".copy")
		os.Remove(path)
	}()
	dec := b.decode(path, flags, trace)
	cp := cmd{label: "cp trace.json", argv: []string{"cp", trace, trace + ".copy"}}
	if _, err := dec.run(); err != nil {
		return err
	}
	sa, sb, err := pair(b.runs, dec, cp, removing(trace, trace+".copy"))
	if err != nil {
		return err
	}
	row(fmt.Sprintf("decode %.1f GB capture → file (%.1f GB)", float64(size(path))/1e9, float64(size(trace))/1e9),
		dec, cp, sa, sb, true, "%.2f× cp", "≤ 1.2× cp, ≤ 32 MiB")
	return nil
}
