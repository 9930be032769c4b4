package cli

import (
	"fmt"
	"io"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/report"
	"github.com/webbench/webbench/harness/results"
)

// checkGate refuses --fail-on-regression on a matrix with fewer than two
// revisions: there would be nothing to gate on.
func checkGate(m *matrix.Matrix) error {
	if len(m.Axes[axis.Revision.Name]) < 2 {
		return usageErr("--fail-on-regression compares revisions measured in this run: give two or more (--revisions BASE,HEAD, or revision: in the matrix)")
	}
	return nil
}

// gate prints what each later revision's cell shows against the
// baseline's, measured in this run, and returns an error with code
// ExitFailed when any is slower beyond the run's own A/A floor.
func gate(w io.Writer, run *results.Run) error {
	rs := analysis.Regressions(run)
	counts := map[analysis.Reading]int{}
	for _, r := range rs {
		counts[r.Reading]++
		fmt.Fprintln(w, regressionLine(r))
	}
	fmt.Fprintf(w, "gate: %d slower, %d faster, %d no difference shown, %d cannot tell, against the baseline measured in this run\n",
		counts[analysis.Slower], counts[analysis.Faster], counts[analysis.NoDifference], counts[analysis.CannotTell])
	if counts[analysis.Slower] > 0 {
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%d cell(s) slower than the baseline revision", counts[analysis.Slower])}
	}
	return nil
}

// regressionLine is one cell's reading: which figure shows what, with its
// paired ratio and interval.
func regressionLine(r analysis.Regression) string {
	line := fmt.Sprintf("  %s: %s", r.Reading, r.Cell.ID())
	if r.Reading == analysis.CannotTell {
		return line + " (" + r.Why + ")"
	}
	line += fmt.Sprintf(": requests/s %s %s", report.RatioText(r.RPS), r.RPSReads)
	if r.CPU.N > 0 {
		line += fmt.Sprintf(", CPU per answer %s %s", report.RatioText(r.CPU), r.CPUReads)
	}
	return line
}
