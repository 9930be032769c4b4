package report

import (
	"fmt"
	"strings"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// RevisionsHeading starts the README's section on a run's revisions, which
// a CI comment quotes (.ci/bench-comment).
const RevisionsHeading = "## Revisions against the baseline"

// revisionsSection writes what run --fail-on-regression reads: each later
// revision's cell against the baseline's, measured in this run, in
// requests per second and in CPU time per answer, each a paired ratio read
// against the run's own A/A floor. Nothing without two revisions.
func revisionsSection(b *strings.Builder, run *results.Run) {
	rs := analysis.Regressions(run)
	if len(rs) == 0 {
		return
	}
	revs := run.Matrix.Axes[axis.Revision.Name]
	fmt.Fprintf(b, "%s\n\nThe baseline is %s%s. Each later revision's cell is measured beside its twin of the baseline, in the same rounds, "+
		"with the baseline's A/A control: head ÷ base trial by trial, the median with its 95%% interval. A figure reads slower or faster "+
		"when its interval clears 1 by more than the A/A control moved it by itself; a cell is slower when either figure is. "+
		"This is the gate of `run --fail-on-regression`.\n\n", RevisionsHeading, mdtext.Code(revs[0]), commitOf(run, revs[0]))
	t := newTable(b)
	t.Header("cell", "commit", "requests/s, head ÷ base", "reads", "CPU µs per answer, head ÷ base", "reads", "reading")
	for _, r := range rs {
		commit := ""
		if r.Cell.Revision != nil {
			commit = short(r.Cell.Revision)
		}
		if r.Reading == analysis.CannotTell {
			t.Append(mdtext.Text(r.Cell.ID()), commit, "—", "", "—", "", "cannot tell: "+mdtext.Text(r.Why))
			continue
		}
		cpu, cpuReads := "—", ""
		if r.CPU.N > 0 {
			cpu, cpuReads = RatioText(r.CPU), string(r.CPUReads)
		}
		t.Append(mdtext.Text(r.Cell.ID()), commit, RatioText(r.RPS), string(r.RPSReads), cpu, cpuReads, "**"+string(r.Reading)+"**")
	}
	t.Render()
	b.WriteString("\n")
}

// RatioText is a paired ratio as the report and the gate print it:
// "0.900× (0.887…0.905)".
func RatioText(p analysis.PairedRatio) string {
	return fmt.Sprintf("%s× (%s…%s)", numfmt.Sig(p.Ratio), numfmt.Sig(p.Lo), numfmt.Sig(p.Hi))
}

// commitOf is " (commit abcdef012345)" for revision rev as run's cells
// recorded it, or "" when none did.
func commitOf(run *results.Run, rev string) string {
	for _, c := range run.Cells {
		if c != nil && c.Revision != nil && c.Revision.Name == rev {
			return " (" + short(c.Revision) + ")"
		}
	}
	return ""
}

// short is a revision's commit as tables show it: 12 hex digits, and
// "dirty" for a work tree that differed from it.
func short(r *results.Revision) string {
	s := r.Commit
	if len(s) > 12 {
		s = s[:12]
	}
	if r.Dirty {
		s += " (dirty)"
	}
	return s
}
