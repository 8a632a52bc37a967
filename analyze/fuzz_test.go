package analyze_test

import (
	"bytes"
	"testing"

	"github.com/megakernel/cycleabi/analyze"
	"github.com/stretchr/testify/require"
)

// FuzzReadReport: any bytes read as a report either fail or give a report
// that diffs with itself to zero and renders in every format.
func FuzzReadReport(f *testing.F) {
	// A small report of every shape (the example's golden is 50 KB,
	// which slows mutation to a crawl).
	f.Add([]byte(`{"abi_version":1,"abi_fingerprint":"e7b0842e14986bfc","ranks":[{"rank":0,"capture":"a.bin",
"cycle_frequency_mhz":50,"records":3,"makespan_cycles":100,"makespan_us":2,
"cores":[{"core":"AIC/0","core_type":"AIC","block_id":0,"entry_cycle":1,"end_cycle":101,"records":3,"compute_cycles":50,"wait_cycles":20,"trigger_cycles":5,"other_cycles":0,"idle_cycles":25}],
"regions":{"AIC":{"cores":1,"active_cores":1,"span_cycles":100,"compute_cycles":50,"busy_pct":50,"imbalance":1}},
"totals":{"cores":1,"span_cycles":100,"compute_cycles":50,"busy_pct":50,"imbalance":1},
"task_types":[{"name":"MatMul","count":1,"total_cycles":50,"mean_cycles":50,"p50_cycles":50,"p90_cycles":50,"p99_cycles":50,"max_cycles":50,"exact":true}],
"stages":[{"name":"Router","count":1,"total_cycles":50}],"owners":[],"waits":[{"name":"Router","count":1,"total_cycles":20}],
"critical_path":{"start_cycle":1,"end_cycle":101,"total_cycles":100,"by_kind":{"compute":50,"gap":50},"by_stage":[{"name":"Router","cycles":50}],
"segments":[{"core":"AIC/0","task_id":null,"kind":"gap","start_cycle":1,"end_cycle":51},{"core":"AIC/0","task_id":3,"kind":"compute","start_cycle":51,"end_cycle":101,"task_type":"MatMul","stage":"Router"}]},
"flows":{"waits":1,"arrows":1,"waits_without_producer":0}}],"cross_rank":null}`))
	f.Add([]byte(`{"abi_fingerprint":"x","ranks":[{}]}`))
	f.Add([]byte(`{"abi_fingerprint":"x","ranks":[{"rank":1},{"rank":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		r, err := analyze.ReadReport("fuzz.json", data)
		if err != nil {
			return
		}
		d, err := analyze.Compare(r, r, false)
		if err != nil {
			return // duplicate ranks
		}
		if !d.IsZero() {
			// NaN compares unequal to itself: only a report carrying one may differ.
			var b bytes.Buffer
			_ = d.WriteJSON(&b)
			require.Containsf(t, string(data), string([]byte("NaN")), "self-diff not zero: %s", b.Bytes())
		}
		var b bytes.Buffer
		_ = d.WriteText(&b, 3)
		_ = d.WriteMarkdown(&b, 3)
		_ = r.WriteText(&b, 3)
		_ = r.WriteMarkdown(&b, 3)
		for _, table := range analyze.Tables {
			_ = r.WriteCSV(&b, table)
		}
	})
}
