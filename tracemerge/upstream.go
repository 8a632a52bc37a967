package tracemerge

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/megakernel/cycleabi/internal/jsonread"
	"github.com/megakernel/cycleabi/internal/jsontext"
)

// This file holds the rules by which hyper-parallel's merger
// (profiler/trace_merger.py) picks outer kernels, restated over raw JSON
// values: which events are candidates, which are device kernels, how
// candidates score, and the default name pattern. The merger reads the
// framework trace with Python's json module and applies float(), str() and
// str.lower() to its values; the helpers here give the same answers for
// the values a trace holds (see docs/merge.md for the few that differ).

// pyFloat reads a ts or dur value as Python's float() reads what
// json.loads made of it: a JSON number, or a string of a decimal number
// (surrounding whitespace, a sign, "_" between digits, non-ASCII decimal
// digits, inf and nan allowed). It returns the number's plain ASCII text
// (for exact placement), its float64 value, and whether it is a number at
// all (false for null, booleans, objects, "12abc"). A finite text whose
// float64 overflows comes back as an infinity.
func pyFloat(v []byte) (text string, f float64, ok bool) {
	if len(v) == 0 {
		return "", 0, false
	}
	switch v[0] {
	case '"':
		s, ok := jsonread.Unquote(v)
		if !ok {
			return "", 0, false
		}
		text, ok = pyFloatText(s)
		if !ok {
			return "", 0, false
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if string(v) == "-Infinity" {
			return "-inf", math.Inf(-1), true
		}
		if !jsonread.IsNumber(v) {
			return "", 0, false
		}
		text = string(v)
	case 'N', 'I':
		// Python's json module reads NaN and Infinity as floats.
		switch string(v) {
		case "NaN":
			return "nan", math.NaN(), true
		case "Infinity":
			return "inf", math.Inf(1), true
		}
		return "", 0, false
	default:
		return "", 0, false
	}
	switch strings.TrimPrefix(text, "-") {
	case "nan":
		return text, math.NaN(), true
	case "inf":
		if text[0] == '-' {
			return text, math.Inf(-1), true
		}
		return text, math.Inf(1), true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return "", 0, false
	}
	return text, f, true
}

// pyFloatText normalises the string s as float(s) parses it: it returns
// "inf", "-inf", "nan" or a decimal number in ASCII (no "_", no "+"), or
// false when float(s) would raise.
func pyFloatText(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case unicode.IsDigit(r):
			b.WriteByte('0' + byte(digitValue(r)))
		case pyIsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	t := strings.TrimFunc(b.String(), pyIsSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	sign := ""
	if neg {
		sign = "-"
	}
	switch strings.ToLower(t) {
	case "inf", "infinity":
		return sign + "inf", true
	case "nan":
		return sign + "nan", true
	}
	// digits [. digits] [e [sign] digits], "_" only between two digits.
	var out strings.Builder
	out.WriteString(sign)
	i := 0
	digitsRun := func() int {
		n := 0
		for i < len(t) {
			c := t[i]
			if '0' <= c && c <= '9' {
				out.WriteByte(c)
				n++
				i++
				continue
			}
			if c == '_' && n > 0 && i+1 < len(t) && '0' <= t[i+1] && t[i+1] <= '9' {
				i++
				continue
			}
			break
		}
		return n
	}
	whole := digitsRun()
	frac := 0
	if i < len(t) && t[i] == '.' {
		out.WriteByte('.')
		i++
		frac = digitsRun()
	}
	if whole+frac == 0 {
		return "", false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		out.WriteByte('e')
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			out.WriteByte(t[i])
			i++
		}
		if digitsRun() == 0 {
			return "", false
		}
	}
	return out.String(), i == len(t)
}

// digitValue is the value of a Unicode decimal digit: digits come in runs
// of ten from zero, so it is the rune's place in its run.
func digitValue(r rune) int {
	n := 0
	for unicode.IsDigit(r - rune(n) - 1) {
		n++
	}
	return n % 10
}

// pyIsSpace is Python's str.isspace: Go's unicode.IsSpace plus the
// information separators 0x1c-0x1f.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f }

// pyLower is Python's str.lower as far as ASCII tokens can tell: Go's
// strings.ToLower, but U+0130 becomes "i" and a combining dot, so that
// "İ" never makes an "i".
func pyLower(s string) string {
	if strings.ContainsRune(s, '\u0130') {
		s = strings.ReplaceAll(s, "\u0130", "i\u0307")
	}
	return strings.ToLower(s)
}

// pyStr is Python's str() of the JSON value v as json.loads reads it, for
// values that are not arrays or objects (those come back as their JSON
// text); absent (nil) is None.
func pyStr(v []byte) string {
	if len(v) == 0 {
		return "None"
	}
	switch v[0] {
	case '"':
		s, _ := jsonread.Unquote(v)
		return s
	case 't':
		return "True"
	case 'f':
		return "False"
	case 'n':
		return "None"
	case 'N':
		return "nan"
	case 'I':
		return "inf"
	case '{', '[':
		return string(v)
	}
	if string(v) == "-Infinity" {
		return "-inf"
	}
	if !jsonread.IsNumber(v) {
		return string(v)
	}
	if !strings.ContainsAny(string(v), ".eE") {
		// An int: its digits, "-0" as "0".
		t := strings.TrimPrefix(string(v), "-")
		if strings.Trim(t, "0") == "" {
			return "0"
		}
		return string(v)
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	return pyFloatRepr(f)
}

// pyFloatRepr is Python's repr of a float (jsontext.AppendPyFloat).
func pyFloatRepr(f float64) string { return string(jsontext.AppendPyFloat(nil, f)) }

// Tokens of upstream's device-kernel test and score.
var (
	deviceCatTokens  = []string{"kernel", "npu", "ascend", "aicore"}
	deviceTaskTokens = []string{"kernel", "ai_core", "aicore", "aic", "aiv"}
	argsScoreTokens  = []string{"kernel", "task type", "ai_core", "aicore"}
	hostCatTokens    = []string{"cpu", "python"}
)

// containsAny reports whether the lowercased s holds one of tokens.
func containsAny(s string, tokens []string) bool {
	for _, t := range tokens {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// textHas reports whether Python's str(v).lower() (json.dumps for args)
// holds one of tokens. The tokens are lowercase letters, "_" and " ",
// which no JSON or repr syntax writes, so they can only come from inside
// one of v's strings (keys or values): each is searched unescaped.
func textHas(v []byte, tokens []string) bool {
	if len(v) == 0 {
		return false
	}
	if v[0] != '"' && v[0] != '{' && v[0] != '[' {
		return containsAny(pyLower(pyStr(v)), tokens)
	}
	for i := 0; i < len(v); {
		if v[i] != '"' {
			i++
			continue
		}
		j := jsonread.StringEnd(v, i)
		s, _ := jsonread.Unquote(v[i:j])
		if containsAny(pyLower(s), tokens) {
			return true
		}
		i = j
	}
	return false
}

// taskType returns args' "Task Type" value (the first key that, trimmed,
// lowercased and with "_" as " ", reads "task type"), or nil.
func taskType(args []member) []byte {
	for i := range args {
		k := string(args[i].Key)
		if len(k) < len("task type") {
			continue // no shorter key reads "task type"
		}
		if strings.ReplaceAll(pyLower(strings.TrimFunc(k, pyIsSpace)), "_", " ") == "task type" {
			// A repeated key keeps its first place and its last value.
			return get(args, k)
		}
	}
	return nil
}

// isDeviceKernel is upstream's device-kernel test: cat holds kernel, npu,
// ascend or aicore, or a Task Type arg holds kernel, ai_core, aicore, aic
// or aiv.
func isDeviceKernel(cat []byte, args []member) bool {
	if cat != nil && textHas(cat, deviceCatTokens) {
		return true
	}
	tt := taskType(args)
	if tt == nil {
		return false
	}
	return textHas(tt, deviceTaskTokens)
}

// kernelScore is upstream's score of a candidate: how likely it is a
// device kernel.
func kernelScore(name string, cat, argsRaw []byte, device bool) int {
	n := pyLower(name)
	score := 0
	if device {
		score += 6
	}
	if strings.Contains(n, "pyboostlaunchaclnn") {
		score += 2
	} else if strings.Contains(n, "pynativelaunchtask") {
		score++
	}
	if strings.Contains(n, "getworkspacesize") || strings.Contains(n, "tiling") {
		score -= 3
	}
	if strings.Contains(n, "_op_") || strings.Contains(n, "kernel") {
		score += 5
	}
	if cat != nil && textHas(cat, deviceCatTokens) {
		score += 3
	}
	if textHas(argsRaw, argsScoreTokens) {
		score += 2
	}
	if cat != nil && textHas(cat, hostCatTokens) {
		score -= 4
	}
	return score
}

// upstreamDefaultPattern is the pattern upstream matches when the
// MegaKernel trace names no kernel it can make words of.
const upstreamDefaultPattern = `(?i)mega[_]?kernel`

// defaultPatternOf builds upstream's default pattern from the
// invocations' kernel names: each name's CamelCase words joined with
// "[_]?", the names as alternatives, case ignored.
func defaultPatternOf(names []string) string {
	var alts []string
	for _, name := range names {
		words := camelWords(name)
		var p string
		if len(words) == 0 {
			p = regexp.QuoteMeta(name)
		} else {
			q := make([]string, len(words))
			for i, w := range words {
				q[i] = regexp.QuoteMeta(w)
			}
			p = strings.Join(q, "[_]?")
		}
		if p != "" && !contains(alts, p) {
			alts = append(alts, p)
		}
	}
	if len(alts) == 0 {
		return upstreamDefaultPattern
	}
	return "(?i)(?:" + strings.Join(alts, "|") + ")"
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// camelWords splits a kernel name into words as upstream's
// [A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+ finds them: acronyms,
// capitalised or lowercase words, and runs of digits; everything else
// separates words ("HyperMegaMoe" -> Hyper Mega Moe, "MHCPost2" -> MHC
// Post 2).
func camelWords(name string) []string {
	rs := []rune(name)
	upper := func(i int) bool { return i < len(rs) && 'A' <= rs[i] && rs[i] <= 'Z' }
	lower := func(i int) bool { return i < len(rs) && 'a' <= rs[i] && rs[i] <= 'z' }
	digit := func(i int) bool { return i < len(rs) && unicode.IsDigit(rs[i]) }
	// end: Python's $ matches at the end and before a final newline.
	end := func(i int) bool { return i == len(rs) || i == len(rs)-1 && rs[i] == '\n' }
	var words []string
	for i := 0; i < len(rs); {
		// [A-Z]+ followed by [A-Z][a-z], a digit or the end, longest first.
		n := 0
		for upper(i + n) {
			n++
		}
		matched := 0
		for l := n; l >= 1; l-- {
			j := i + l
			if upper(j) && lower(j+1) || digit(j) || end(j) {
				matched = l
				break
			}
		}
		if matched == 0 {
			// [A-Z]?[a-z]+
			j := i
			if upper(j) && lower(j+1) {
				j++
			}
			for lower(j) {
				j++
			}
			matched = j - i
		}
		if matched == 0 {
			j := i
			for digit(j) {
				j++
			}
			matched = j - i
		}
		if matched == 0 {
			i++
			continue
		}
		words = append(words, string(rs[i:i+matched]))
		i += matched
	}
	return words
}
