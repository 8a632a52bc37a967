package tracemerge

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// This file holds upstream's outer-kernel selection
// (hyper-parallel profiler/trace_merger.py@48d4e891: _complete_events,
// _is_device_kernel_event, _kernel_score, _kernel_candidates,
// _fallback_kernel_candidates, _validate_selected_candidates) written a
// second time, simply, over encoding/json's reading of the trace, and
// holds merge's choice to it on random framework traces.

// upEvent is a framework event as upstream's json.loads sees it.
type upEvent struct {
	m   map[string]any
	tid int64 // unique per event: names the event in the comparison
}

// upNumber is upstream's _number: float() of an int, float or str,
// finite; bools and everything else refused.
var upNumberRe = regexp.MustCompile(`^[+-]?(([0-9]+(_[0-9]+)*)?\.?[0-9]+(_[0-9]+)*|[0-9]+(_[0-9]+)*\.)([eE][+-]?[0-9]+(_[0-9]+)*)?$`)

func upNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil && !math.IsInf(f, 0)
	case string:
		s := strings.TrimSpace(x)
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "inf", "infinity", "nan":
			return 0, false // not finite
		}
		if !upNumberRe.MatchString(s) {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}

// upStr is str() of the values the generator writes.
func upStr(v any, absent string) string {
	switch x := v.(type) {
	case nil:
		return absent
	case string:
		return x
	case json.Number:
		return string(x)
	}
	return fmt.Sprint(v)
}

func hasAny(s string, tokens ...string) bool {
	for _, t := range tokens {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

func upIsDevice(e map[string]any) bool {
	cat := strings.ToLower(upStr(e["cat"], "None"))
	if _, ok := e["cat"]; !ok {
		cat = ""
	}
	taskType := ""
	if args, ok := e["args"].(map[string]any); ok {
		for k, v := range args { // the generator writes at most one such key
			if strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", " ") == "task type" {
				taskType = strings.ToLower(upStr(v, "None"))
			}
		}
	}
	return hasAny(cat, "kernel", "npu", "ascend", "aicore") || taskType != "" && hasAny(taskType, "kernel", "ai_core", "aicore", "aic", "aiv")
}

func upScore(e map[string]any) int {
	name := strings.ToLower(upStr(e["name"], ""))
	cat := ""
	if c, ok := e["cat"]; ok {
		cat = strings.ToLower(upStr(c, "None"))
	}
	args, ok := e["args"]
	if !ok {
		args = map[string]any{}
	}
	js, _ := json.Marshal(args)
	argsText := strings.ToLower(string(js))
	s := 0
	if upIsDevice(e) {
		s += 6
	}
	if strings.Contains(name, "pyboostlaunchaclnn") {
		s += 2
	} else if strings.Contains(name, "pynativelaunchtask") {
		s++
	}
	if hasAny(name, "getworkspacesize", "tiling") {
		s -= 3
	}
	if hasAny(name, "_op_", "kernel") {
		s += 5
	}
	if hasAny(cat, "kernel", "npu", "ascend", "aicore") {
		s += 3
	}
	if hasAny(argsText, "kernel", "task type", "ai_core", "aicore") {
		s += 2
	}
	if hasAny(cat, "cpu", "python") {
		s -= 4
	}
	return s
}

type upChoice struct {
	tids     []int64
	scores   []int
	fallback bool
}

// upSelect is upstream's selection: the chosen events, or an error.
func upSelect(events []upEvent, spans []float64, pattern string, patternGiven bool, outerPid *string, index int, allowHost bool) (upChoice, error) {
	var complete []upEvent
	for _, e := range events {
		if ph, ok := e.m["ph"]; ok && ph != nil && ph != "X" {
			continue
		}
		if outerPid != nil && upStr(e.m["pid"], "None") != *outerPid {
			continue
		}
		ts, ok1 := upNumber(e.m["ts"])
		dur, ok2 := upNumber(e.m["dur"])
		if ok1 && ok2 && ts >= 0 && dur > 0 {
			complete = append(complete, e)
		}
	}
	ts := func(e upEvent) float64 { f, _ := upNumber(e.m["ts"]); return f }
	byTs := func(es []upEvent) {
		slices.SortStableFunc(es, func(a, b upEvent) int { return cmp.Compare(ts(a), ts(b)) })
	}
	re := regexp.MustCompile(pattern)
	var cands []upEvent
	for _, e := range complete {
		if re.MatchString(upStr(e.m["name"], "")) {
			cands = append(cands, e)
		}
	}
	n := len(spans)
	var chosen []upEvent
	fallback := false
	switch {
	case len(cands) > 0:
		best := math.MinInt
		for _, e := range cands {
			best = max(best, upScore(e.m))
		}
		var top []upEvent
		for _, e := range cands {
			if upScore(e.m) == best {
				top = append(top, e)
			}
		}
		byTs(top)
		if index+n > len(top) {
			return upChoice{}, errors.New("not enough outer MegaKernel events")
		}
		chosen = top[index : index+n]
	case patternGiven:
		return upChoice{}, errors.New("no complete MegaKernel event matched")
	default:
		var dev []upEvent
		for _, e := range complete {
			if upIsDevice(e.m) {
				dev = append(dev, e)
			}
		}
		if index+n > len(dev) {
			return upChoice{}, errors.New("not enough complete device-kernel events")
		}
		byTs(dev)
		dev = dev[index:]
		bestStart, bestD, bestS := 0, math.Inf(1), math.Inf(1)
		for s := 0; s+n <= len(dev); s++ {
			d, score := 0.0, 0
			for i, e := range dev[s : s+n] {
				dur, _ := upNumber(e.m["dur"])
				p := 0.0
				if dur < spans[i] {
					p = 1
				}
				d += p + math.Abs(dur-spans[i])/math.Max(spans[i], 1)
				score += upScore(e.m)
			}
			if d < bestD || d == bestD && -float64(score) < bestS {
				bestStart, bestD, bestS = s, d, -float64(score)
			}
		}
		chosen, fallback = dev[bestStart:bestStart+n], true
	}
	var c upChoice
	c.fallback = fallback
	for _, e := range chosen {
		if !upIsDevice(e.m) && !allowHost {
			return upChoice{}, errors.New("refusing host-only outer events")
		}
		c.tids = append(c.tids, e.tid)
		c.scores = append(c.scores, upScore(e.m))
	}
	return c, nil
}

// upPatterns is upstream's default pattern for the kernel names the test
// uses, worked out by hand from _camel_case_pattern's regex.
var upPatterns = map[string]string{
	"HyperMegaMoe": "Hyper[_]?Mega[_]?Moe",
	"MegaKernel":   "Mega[_]?Kernel",
	"MHCPost2":     "MHC[_]?Post[_]?2",
	"MegaMoeGrad":  "Mega[_]?Moe[_]?Grad",
}

// TestSelectionIsUpstreams: on random framework traces, merge picks the
// outer kernels upstream's rules pick (or fails where they fail), for one
// and two invocations, with and without --kernel-pattern, --kernel-index,
// --outer-pid and --allow-host-wrapper, whatever the fallback's chunk.
func TestSelectionIsUpstreams(t *testing.T) {
	names := []string{"HyperMegaMoe_7f3a", "hyper_mega_moe", "aclnnHyperMegaMoe", "HyperMegaMoeGetWorkspaceSize", "HyperMegaMoe_tiling",
		"PyBoostLaunchAclnnHyperMegaMoe", "PyNativeLaunchTask::MegaKernel", "MegaKernel_1", "mega_kernel", "MatMul_1", "Add_op_2",
		"MHC_Post_2", "mhcpost2", "mega_moe_grad", "MegaMoeGrad", ""}
	cats := []any{"kernel", "Kernel", "cpu_op", "python_function", "Ascend Hardware", "npu", "aicore", "user_annotation", "gpu_user_annotation", "cuda_runtime", nil, "absent",
		"kernel", "Ascend Hardware", nil}
	taskTypes := []string{"AI_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "HCCL", "KERNEL_AICORE", "AI_VECTOR_CORE", ""}
	taskKeys := []string{"Task Type", "task_type", " Task_Type ", "TaskType"}
	// Good times and durations are drawn more often than bad ones.
	times := []string{`0`, `3`, `5.5`, `12`, `12.0`, `20`, `7`, `15`, `30`, `"7"`, `" 12.5 "`, `"1_0"`, `"20"`, `1e1`,
		`0`, `3`, `5.5`, `12`, `20`, `7`, `15`, `30`, `-3`, `"12abc"`, `null`, `true`, `"nan"`, `"inf"`}
	durs := []string{`1`, `4`, `10.5`, `11`, `30`, `"9"`, `"2_0"`, `25`, `1`, `4`, `10.5`, `11`, `30`, `25`, `0`, `-1`, `null`, `"x"`}
	pids := []string{`0`, `1`, `"0"`, `"npu"`, `7`}
	kernels := []string{"HyperMegaMoe", "MegaKernel", "MHCPost2", "MegaMoeGrad"}
	defer func(c int) { fallbackChunk = c }(fallbackChunk)
	var fallbackOK, namedOK, failed int
	defer func() { t.Logf("chosen by name %d, by the fallback %d, refused %d", namedOK, fallbackOK, failed) }()
	rapid.Check(t, func(rt *rapid.T) {
		// The fallback walks the device kernels a chunk at a time, reading
		// the trace again for each: chunks of 1 to 6 here, so that runs
		// straddle chunks.
		fallbackChunk = rapid.IntRange(1, 6).Draw(rt, "fallbackChunk")
		// The MegaKernel trace: one or two invocations, in time order.
		nInv := rapid.IntRange(1, 2).Draw(rt, "invocations")
		var mkEv []mkEvent
		var invMeta []string
		var invNames []string
		var spans []float64
		for i := range nInv {
			kn := rapid.SampledFrom(kernels).Draw(rt, "kernel")
			invNames = append(invNames, kn)
			invMeta = append(invMeta, fmt.Sprintf(`{"invocationId":%d,"kernelName":"%s","rank":0,"deviceId":0}`, i, kn))
			base := 100 * i
			d1 := rapid.IntRange(1, 40).Draw(rt, "dur1")
			off := rapid.IntRange(0, 10).Draw(rt, "off")
			d2 := rapid.IntRange(1, 40).Draw(rt, "dur2")
			mkEv = append(mkEv, mkEvent{"A", 0, 1000, strconv.Itoa(base), strconv.Itoa(d1), i},
				mkEvent{"B", 0, 2001, strconv.Itoa(base + off), strconv.Itoa(d2), i})
			spans = append(spans, float64(max(d1, off+d2)))
		}
		meta := `{"schemaVersion":1,"rank":0,"deviceId":0,"kernelName":"` + invNames[0] + `","invocations":[` + strings.Join(invMeta, ",") + `]}`
		// The framework trace.
		nEv := rapid.IntRange(0, 20).Draw(rt, "events")
		if rapid.IntRange(0, 9).Draw(rt, "few") > 0 {
			nEv = max(nEv, 6) // mostly enough kernels to choose from
		}
		var lines []string
		for i := range nEv {
			var fields []string
			if ph := rapid.SampledFrom([]string{"X", "X", "X", "X", "X", "X", "absent", "B", "null"}).Draw(rt, "ph"); ph == "null" {
				fields = append(fields, `"ph":null`)
			} else if ph != "absent" {
				fields = append(fields, `"ph":"`+ph+`"`)
			}
			if name := rapid.SampledFrom(names).Draw(rt, "name"); name != "" {
				fields = append(fields, `"name":"`+name+`"`)
			}
			switch c := rapid.SampledFrom(cats).Draw(rt, "cat"); c {
			case nil:
				fields = append(fields, `"cat":null`)
			case "absent":
			default:
				fields = append(fields, `"cat":"`+c.(string)+`"`)
			}
			fields = append(fields, `"pid":`+rapid.SampledFrom(pids).Draw(rt, "pid"), fmt.Sprintf(`"tid":%d`, 100+i))
			fields = append(fields, `"ts":`+rapid.SampledFrom(times).Draw(rt, "ts"), `"dur":`+rapid.SampledFrom(durs).Draw(rt, "dur"))
			var args []string
			if tt := rapid.SampledFrom(taskTypes).Draw(rt, "taskType"); tt != "" {
				args = append(args, fmt.Sprintf(`"%s":"%s"`, rapid.SampledFrom(taskKeys).Draw(rt, "taskKey"), tt))
			}
			if rapid.Bool().Draw(rt, "externalID") {
				args = append(args, `"External id":3`)
			}
			if rapid.IntRange(0, 5).Draw(rt, "kernelArg") == 0 {
				args = append(args, `"kernel_name":"k"`)
			}
			if len(args) > 0 || rapid.Bool().Draw(rt, "emptyArgs") {
				fields = append(fields, `"args":{`+strings.Join(args, ",")+`}`)
			}
			lines = append(lines, "{"+strings.Join(fields, ",")+"}")
		}
		fwText := "[\n" + strings.Join(lines, ",\n") + "\n]"
		if rapid.Bool().Draw(rt, "object") {
			fwText = `{"traceEvents":` + fwText + `}`
		}

		var o Options
		o.Rank = -1
		o.KernelIndex = rapid.SampledFrom([]int{0, 0, 0, 1, 2}).Draw(rt, "kernelIndex")
		o.AllowHostWrapper = rapid.Bool().Draw(rt, "allowHostWrapper")
		if p := rapid.SampledFrom([]string{"", "", "", "", "0", "1", "npu", "7"}).Draw(rt, "outerPid"); p != "" {
			o.OuterPID = &p
		}
		var alts []string
		for _, kn := range invNames {
			if !slices.Contains(alts, upPatterns[kn]) {
				alts = append(alts, upPatterns[kn])
			}
		}
		pattern := "(?i)(?:" + strings.Join(alts, "|") + ")"
		if p := rapid.SampledFrom([]string{"", "", "", "", "", "", "", "", "(?i)mega", "Moe", "^Add", "nomatch", "kernel"}).Draw(rt, "pattern"); p != "" {
			o.KernelPattern, o.KernelPatternSet, pattern = p, true, p
		}

		d := json.NewDecoder(strings.NewReader(fwText))
		d.UseNumber()
		var top any
		require.NoError(rt, d.Decode(&top))
		raw, ok := top.([]any)
		if !ok {
			raw = top.(map[string]any)["traceEvents"].([]any)
		}
		var evs []upEvent
		for i, e := range raw {
			evs = append(evs, upEvent{m: e.(map[string]any), tid: int64(100 + i)})
		}
		want, wantErr := upSelect(evs, spans, pattern, o.KernelPatternSet, o.OuterPID, o.KernelIndex, o.AllowHostWrapper)

		o.Framework = writeFile(t, "fw.json", fwText)
		o.MegaKernel = writeMK(t, mkEv, meta)
		var out bytes.Buffer
		res, err := Merge(&out, o)
		if wantErr != nil {
			failed++
			chose := "" // what merge chose, read only when it chose (res is nil on an error)
			if err == nil {
				chose = string(mustJSON(res.Alignments))
			}
			require.Error(rt, err, "upstream: %v; merge chose %s", wantErr, chose)
			var se *SelectionError
			require.ErrorAsf(rt, err, &se, "upstream: %v; merge: %v (not a SelectionError)", wantErr, err)
			return
		}
		require.NoErrorf(rt, err, "upstream chose tids %v (fallback %v); merge", want.tids, want.fallback)
		require.Equal(rt, pattern, res.KernelPattern, "res.KernelPattern")
		require.Equal(rt, want.fallback, res.UsedFallbackKernelSelection, "fallback: res.UsedFallbackKernelSelection")
		var got []int64
		var scores []int
		for _, a := range res.Alignments {
			tid, _ := strconv.ParseInt(string(a.OuterKernelTid), 10, 64)
			got = append(got, tid)
			scores = append(scores, a.OuterKernelScore)
		}
		require.Equal(rt, want.tids, got, "outer kernels (by tid)")
		if want.fallback {
			fallbackOK++
		} else {
			namedOK++
		}
		require.Equal(rt, want.scores, scores, "outerKernelScore: scores")
	})
}

func TestCamelWords(t *testing.T) {
	for name, want := range map[string][]string{
		"HyperMegaMoe": {"Hyper", "Mega", "Moe"},
		"MHCPost2":     {"MHC", "Post", "2"},
		"MegaMoeGrad":  {"Mega", "Moe", "Grad"},
		"ABC":          {"ABC"},
		"mega_kernel":  {"mega", "kernel"},
		"X86Kernel":    {"X", "86", "Kernel"},
		"aB":           {"a", "B"},
		"ABc":          {"A", "Bc"},
		"___":          nil,
		"GMM1Grad":     {"GMM", "1", "Grad"},
	} {
		require.Equalf(t, want, camelWords(name), "%s: camelWords(name)", name)
	}
	require.Equal(t, `(?i)(?:Hyper[_]?Mega[_]?Moe|___)`, defaultPatternOf([]string{"HyperMegaMoe", "___", "HyperMegaMoe"}))
	require.Equal(t, upstreamDefaultPattern, defaultPatternOf([]string{""}), "defaultPatternOf([]string{\"\"})")
}

func TestPyHelpers(t *testing.T) {
	for in, want := range map[string]string{
		`7`: "7", `-0`: "0", `7.0`: "7.0", `1e16`: "1e+16", `1e15`: "1000000000000000.0", `0.0001`: "0.0001",
		`0.00001`: "1e-05", `"7"`: "7", `null`: "None", `true`: "True", `1.5e300`: "1.5e+300", `-2.50`: "-2.5",
	} {
		require.Equalf(t, want, pyStr([]byte(in)), "%s: pyStr([]byte(in))", in)
	}
	for in, want := range map[string]string{
		`" 1_000.5 "`: "1000.5", `"+5"`: "5", `".5"`: ".5", `"5."`: "5.", `"1e1_0"`: "1e10", `"\u0661\u0662"`: "12",
		`"INFINITY"`: "inf", `"-nan"`: "-nan", `12`: "12", `-Infinity`: "-inf", `NaN`: "nan",
	} {
		text, _, ok := pyFloat([]byte(in))
		require.Truef(t, ok, "%s: ok = false, want true", in)
		require.Equalf(t, want, text, "%s: text", in)
	}
	for _, in := range []string{`"12abc"`, `"1__0"`, `"_1"`, `"1_"`, `null`, `true`, `""`, `"."`, `"1e"`, `{}`} {
		_, _, ok := pyFloat([]byte(in))
		require.Falsef(t, ok, "%s: ok = true, want false", in)
	}
}
