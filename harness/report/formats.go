package report

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/results"
)

// CSV writes one row per ok cell with its statistics, scenarios in matrix
// order, rows in the tables' order: every figure of the main table and of
// its details. A control's vs_fastest is empty: it is compared with nothing.
// Cancelling ctx stops it between scenarios with ctx's error.
func CSV(ctx context.Context, w io.Writer, run *results.Run) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "target", "scenario", "params", "cpus", "connections", "connection_close", "rate", "aggregate", "rps", "trials",
		"rps_median", "rps_ci_lo", "rps_ci_hi", "rps_min", "rps_max", "rps_cv", "noisy", "vs_fastest", "vs_fastest_significance",
		"latency_ms_p50", "latency_ms_p99", "latency_ms_p99_ci_lo", "latency_ms_p99_ci_hi", "latency_ms_mean", "latency_ms_max", "mb_per_s", "errors", "error_rate", "target_cpu_cores", "target_mem_peak_mib", "generator_bound_trials", "runtime",
		"cores", "control", "ceiling_share", "bounded_by", "bounded_by_figures", "bounded_with", "bound_by"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, sc := range scenarios(run) {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, r := range analysis.Rows(run, sc) {
			lo, hi, plo, phi, vs := "", "", "", "", ""
			if r.RPSStats.HasCI {
				lo, hi = f(r.RPSStats.Lo), f(r.RPSStats.Hi)
			}
			if r.P99.HasCI {
				plo, phi = f(r.P99.Lo), f(r.P99.Hi)
			}
			if !r.Control {
				vs = f(r.VsFastest)
			}
			cw.Write(mdtext.CSVRow([]string{r.ID, r.Target, r.Scenario, r.Params, strconv.Itoa(r.CPUs), strconv.Itoa(r.Connections), strconv.FormatBool(r.Close), strconv.Itoa(r.Rate), string(r.Aggregate),
				f(r.RPS), strconv.Itoa(r.RPSStats.N), f(r.RPSStats.Median), lo, hi, f(r.RPSStats.Min), f(r.RPSStats.Max),
				f(r.RPSStats.CV), strconv.FormatBool(r.Noisy), vs, r.Versus, f(r.P50.Median), f(r.P99.Median), plo, phi, f(r.MeanMS), f(r.MaxMS), f(r.MBps),
				strconv.FormatInt(r.Errors, 10), f(r.ErrorRate), f(r.TargetCPU), f(r.PeakMiB), strconv.Itoa(r.GeneratorBound), r.Runtime,
				strconv.Itoa(r.Cores), strconv.FormatBool(r.Control), f(r.CeilingShare), r.Bound, boundFigures(r.Bounding), r.BoundWith, strings.Join(r.BoundBy, "; ")}))
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSON writes the tables' model (analysis.Model, versioned by its schema
// field; docs/report.schema.json describes it).
func JSON(w io.Writer, run *results.Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(analysis.Build(run))
}
