package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/internal/mdtable"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/stats"
)

func table(w io.Writer) *mdtable.Table { return mdtable.New(w) }

// center renders a median with its interval as benchstat does: "45,700 ± 3%"
// (the larger side of the 95% interval), or with n when there is none.
func center(s stats.Summary) string {
	if !s.HasCI {
		return fmt.Sprintf("%s (n=%d)", numfmt.Sig(s.Median), s.N)
	}
	pct := 100 * math.Max(s.Hi/s.Median-1, 1-s.Lo/s.Median)
	return fmt.Sprintf("%s ± %s%%", numfmt.Sig(s.Median), numfmt.Sig(pct))
}

// delta is a change against the first run, with "~" beside it when it
// does not clear the floor, and "cannot tell" before it when the runs have
// too few trials for a verdict.
func delta(d float64, beyond, told bool, n int) string {
	switch {
	case !told:
		return fmt.Sprintf("cannot tell: n=%d (%+.1f%%)", n, 100*d)
	case !beyond:
		return fmt.Sprintf("~ %+.1f%%", 100*d)
	}
	return fmt.Sprintf("%+.1f%%", 100*d)
}

// runName is a run as the text names it: called a run and quoted, so
// that a run labelled like one of its targets ("mine") is not read as the
// target.
func runName(name string) string { return "run " + strconv.Quote(name) }

// runNames is runName of several runs.
func runNames(names []string) string {
	if len(names) == 1 {
		return runName(names[0])
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return "runs " + strings.Join(q, ", ")
}

// FloorText says what a difference had to clear, and where that came from.
func FloorText(f Floor) string {
	band := fmt.Sprintf("−%.0f%% … +%.0f%%", 100*(1-1/(1+f.Width)), 100*f.Width)
	var from string
	switch f.Source {
	case FloorControls:
		from = fmt.Sprintf("the A/A control of %s, the widest floor of these runs' own controls", runName(mdtext.Text(f.From)))
	case FloorMachine:
		from = fmt.Sprintf("the drift recorded for this machine between %s", f.From)
	default:
		from = "the default allowance for drift between runs (measured between runs of the same cells on this project's VM: −16% to +33%, read both ways)"
	}
	out := fmt.Sprintf("Beyond noise means past %s: %s.", band, from)
	switch {
	case f.Controls == 0:
		out += " **These runs carry no A/A control**, so nothing of their own bounds the noise."
	case f.Source != FloorControls:
		out += fmt.Sprintf(" These runs' own A/A controls reach only ±%.1f%% (%s): a control runs beside its twin, seconds apart, and cannot see the drift between runs.", 100*f.Controls, runName(mdtext.Text(f.ControlsFrom)))
	}
	if f.Width >= MaxGateFloor {
		out += " **A floor this wide cannot clear a halving: no difference here can be called one.**"
	}
	return out
}

// String words a problem for a reviewer.
func (p Problem) String() string {
	switch p.Kind {
	case Regressed:
		switch p.Metric {
		case AchievedRate:
			return fmt.Sprintf("%s in %s: the fixed rate of %s/s not held: %s/s achieved (%+.1f%%), %d of %d trial(s) short of it, where the first run held it",
				p.Cell, runName(p.Run), numfmt.Count(int64(p.Rate)), numfmt.Sig(p.Achieved), 100*p.Delta, p.Short, p.Trials)
		case LatencyP99:
			return fmt.Sprintf("%s in %s: p99 latency higher (fixed rate) by %+.1f%%, beyond the floor", p.Cell, runName(p.Run), 100*p.Delta)
		}
		return fmt.Sprintf("%s in %s: slower by %+.1f%%, beyond the floor", p.Cell, runName(p.Run), 100*p.Delta)
	case CellFailed, CellSkipped:
		return fmt.Sprintf("%s: ok in the first run, %s in %s (%s)", p.Cell, p.Kind, runName(p.Run), p.Reason)
	case CellMissing:
		return fmt.Sprintf("%s: ok in the first run, not in %s at all", p.Cell, runName(p.Run))
	case CellPartial:
		return fmt.Sprintf("%s: measured in part in %s (%d of %d trials), compared with nothing; `bin/harness run --resume` finishes it", p.Cell, runName(p.Run), p.Done, p.Asked)
	case NothingMeasured:
		out := fmt.Sprintf("%s measured nothing: %d cell(s), %d failed, %d skipped", runName(p.Run), p.Cells, p.Failed, p.Skipped)
		if p.Partial > 0 {
			out += fmt.Sprintf(", %d measured in part", p.Partial)
		}
		return out
	case NotComparable:
		var ds []string
		for _, d := range p.Differs {
			ds = append(ds, fmt.Sprintf("%s %s against %s", d.Axis, strings.Join(d.Later, ","), strings.Join(d.First, ",")))
		}
		return fmt.Sprintf("%s is not comparable with the first run: no cell in common (%s)", runName(p.Run), strings.Join(ds, "; "))
	case FloorTooWide:
		return fmt.Sprintf("the floor is ±%.0f%% (from %s): too wide to clear any regression", 100*p.Width, runName(p.Run))
	}
	return string(p.Kind)
}

// CannotTellText says, run by run, how many cells could not be told from
// the first run's: "" when every cell could.
func CannotTellText(c *Comparison) string {
	lines := 0
	for _, sc := range c.Scenarios {
		lines += len(sc.Lines)
	}
	var parts []string
	for i, n := range c.CannotTell {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d cells in %s", n, lines, runName(c.Names[i])))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Cannot tell: %s, against the first run. With so few trials the U test could never reach p < %.2f, and a single trial has no spread to bound the drift between runs: such a change is no verdict either way, and the gate does not fail on it. Measure with more trials (the trials6 profile) to judge them.",
		strings.Join(parts, "; "), stats.Alpha)
}

// scenarioTable renders one scenario's lines under the floor they were
// judged by; true when a p-value is marked untestable.
func scenarioTable(b *strings.Builder, c *Comparison, sc Scenario) (bool, error) {
	unit := "requests/s"
	if sc.Metric == LatencyP99 {
		unit = "p99 latency, ms; fixed rate: its RPS is the rate offered, so the latency is judged"
	}
	fmt.Fprintf(b, "\n## %s (%s)\n\n%s\n\n", mdtext.Text(sc.Name), unit, FloorText(c.Floor))
	t := table(b)
	first := mdtext.Text(runName(c.Names[0]))
	header := []any{"cell", first}
	for _, n := range c.Names[1:] {
		header = append(header, mdtext.Text(runName(n)), "vs "+first, "p")
	}
	t.Header(header...)
	untestable := false
	for _, l := range sc.Lines {
		row := []any{mdtext.Text(l.Cell), center(l.Stats[0])}
		for i := 1; i < len(c.Names); i++ {
			p := strconv.FormatFloat(l.Test[i].P, 'f', 3, 64)
			if !l.Test[i].Testable {
				p += " ¹"
				untestable = true
			}
			n := min(l.Stats[0].N, l.Stats[i].N)
			row = append(row, center(l.Stats[i]), delta(l.Delta[i], l.Beyond[i], l.Told[i], n), p)
		}
		if err := t.Append(row...); err != nil {
			return false, err
		}
	}
	row := []any{"**geomean**", numfmt.Sig(sc.Geomean[0])}
	for i := 1; i < len(c.Names); i++ {
		// A geomean is told only where each of its cells is.
		told, n := true, math.MaxInt
		for _, l := range sc.Lines {
			told, n = told && l.Told[i], min(n, l.Stats[0].N, l.Stats[i].N)
		}
		row = append(row, numfmt.Sig(sc.Geomean[i]), delta(sc.GeoDelta[i], c.Floor.Beyond(sc.GeoDelta[i]+1), told, n), "")
	}
	if err := t.Append(row...); err != nil {
		return false, err
	}
	return untestable, t.Render()
}

// Markdown renders the comparison for a reviewer, within DefaultCaps; it
// returns what the caps left out, one sentence each (the page says the
// same at its top), for the command to warn with.
func Markdown(w io.Writer, c *Comparison) ([]string, error) { return DefaultCaps.markdown(w, c) }

func (cp Caps) markdown(w io.Writer, c *Comparison) ([]string, error) {
	untold := CannotTellText(c) // of every line, not only those shown
	c, left := cp.within(c)
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison of %s\n\n", mdtext.Text(runNames(c.Names)))
	b.WriteString(cp.notice(left))
	b.WriteString("## Environment\n\nFacts that differ between the runs are in bold: a different base image or runtime version explains many \"regressions\".\n\n")
	t := table(&b)
	heads := []any{"fact"}
	for _, n := range c.Names {
		heads = append(heads, mdtext.Text(runName(n)))
	}
	t.Header(heads...)
	for _, e := range c.Env {
		row := []any{e.Field}
		for _, v := range e.Values {
			v = mdtext.Text(v)
			if e.Differs && v != "" {
				v = "**" + v + "**"
			}
			row = append(row, v)
		}
		if err := t.Append(row...); err != nil {
			return nil, err
		}
	}
	if err := t.Render(); err != nil {
		return nil, err
	}
	for _, e := range c.Env {
		if e.Field == "load generator" && e.Differs {
			// Like another machine: a tool sets the figure as much as the
			// server (see a run's cross-check), and its ceiling bounds it.
			b.WriteString("\n**The runs used different load generators.** Treat them as different machines: a cell's figure depends on the tool that measured it (its ceiling, what it counts), so a difference between these runs may be the tools'. Cells are matched only with cells measured by the same generator.\n")
		}
	}
	if len(c.Problems) > 0 {
		b.WriteString("\n## What a gate fails on\n\n")
		for _, p := range c.Problems {
			fmt.Fprintf(&b, "- **%s**: %s\n", p.Kind, mdtext.Text(p.String()))
		}
	}
	if untold != "" {
		fmt.Fprintf(&b, "\n**%s**\n", mdtext.Text(untold))
	}
	untestable := false
	for _, sc := range c.Scenarios {
		u, err := scenarioTable(&b, c, sc)
		if err != nil {
			return nil, err
		}
		untestable = untestable || u
	}
	b.WriteString("\n`~` beside a change: it does not clear the floor stated above the table, or the two runs' intervals overlap. ± is the larger side of the median's 95% confidence interval; `(n=N)`: too few trials for one. p: the Mann-Whitney U test on the trials, for information: it sees the spread within each run, not the drift between runs, so it does not decide `~`; but where it could never find a change significant, too few trials for it (3 a side or fewer), the change reads `cannot tell`: no verdict either way.\n")
	if untestable {
		fmt.Fprintf(&b, "¹ too few trials for the U test ever to reach p < %.2f.\n", stats.Alpha)
	}
	if len(c.Unmatched) > 0 {
		b.WriteString("\n## Cells not in every run\n\n")
		for _, u := range c.Unmatched {
			fmt.Fprintf(&b, "- %s: only in %s\n", mdtext.Code(u.Cell), mdtext.Text(runNames(u.In)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return left, err
}

// CSV renders one row per matched cell and run.
func CSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"scenario", "metric", "cell", "run", "n", "median", "ci_lo", "ci_hi", "min", "max", "delta_vs_first", "beyond_floor", "floor", "p_value", "told"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			for i, s := range l.Stats {
				lo, hi := "", ""
				if s.HasCI {
					lo, hi = f(s.Lo), f(s.Hi)
				}
				cw.Write(mdtext.CSVRow([]string{sc.Name, string(sc.Metric), l.Cell, c.Names[i], strconv.Itoa(s.N), f(s.Median), lo, hi, f(s.Min), f(s.Max),
					f(l.Delta[i]), strconv.FormatBool(l.Beyond[i]), f(c.Floor.Width), f(l.Test[i].P), strconv.FormatBool(l.Told[i])}))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
