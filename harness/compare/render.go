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

func delta(d float64, t stats.Comparison) string {
	if !t.Significant {
		return "~"
	}
	return fmt.Sprintf("%+.1f%%", 100*d)
}

func texts(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdtext.Text(s)
	}
	return out
}

// Markdown renders the comparison for a reviewer.
func Markdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Comparison: %s\n\n", mdtext.Text(strings.Join(c.Names, " vs ")))
	b.WriteString("## Environment\n\nFacts that differ between the runs are in bold: a different base image or runtime version explains many \"regressions\".\n\n")
	t := table(&b)
	t.Header(append([]any{"fact"}, anys(texts(c.Names))...)...)
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
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, e := range c.Env {
		if e.Field == "load generator" && e.Differs {
			// Like another machine: a tool sets the figure as much as the
			// server (see a run's cross-check), and its ceiling bounds it.
			b.WriteString("\n**The runs used different load generators.** Treat them as different machines: a cell's figure depends on the tool that measured it (its ceiling, what it counts), so a difference between these runs may be the tools'. Cells are matched only with cells measured by the same generator.\n")
		}
	}
	untestable := false
	for _, sc := range c.Scenarios {
		fmt.Fprintf(&b, "\n## %s (requests/s)\n\n", mdtext.Text(sc.Name))
		t := table(&b)
		header := []any{"cell", mdtext.Text(c.Names[0])}
		for _, n := range c.Names[1:] {
			header = append(header, mdtext.Text(n), "vs "+mdtext.Text(c.Names[0]), "p")
		}
		t.Header(header...)
		for _, l := range sc.Lines {
			row := []any{mdtext.Text(l.Cell), center(l.Stats[0])}
			for i := 1; i < len(c.Names); i++ {
				p := strconv.FormatFloat(l.Test[i].P, 'f', 3, 64)
				if !l.Test[i].Testable {
					p += " ¹"
					untestable = true
				}
				row = append(row, center(l.Stats[i]), delta(l.Delta[i], l.Test[i]), p)
			}
			if err := t.Append(row...); err != nil {
				return err
			}
		}
		row := []any{"**geomean**", numfmt.Sig(sc.Geomean[0])}
		for i := 1; i < len(c.Names); i++ {
			row = append(row, numfmt.Sig(sc.Geomean[i]), fmt.Sprintf("%+.1f%%", 100*sc.GeoDelta[i]), "")
		}
		if err := t.Append(row...); err != nil {
			return err
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	b.WriteString("\n`~`: not significant at α = 0.05 (Mann-Whitney U test on the trials' RPS)")
	if c.NoiseFloor > 0 {
		fmt.Fprintf(&b, ", or within ±%.1f%%, the largest A/A noise floor of these runs", 100*c.NoiseFloor)
	}
	b.WriteString(". ± is the larger side of the median's 95% confidence interval; `(n=N)`: too few trials for one.\n")
	if untestable {
		fmt.Fprintf(&b, "¹ fewer than 4 trials on each side: the U test cannot reach p < %.2f, so no difference can be called significant; run more trials.\n", stats.Alpha)
	}
	if len(c.Unmatched) > 0 {
		b.WriteString("\n## Cells not in every run\n\n")
		for _, u := range c.Unmatched {
			fmt.Fprintf(&b, "- %s: only in %s\n", mdtext.Code(u.Cell), mdtext.Text(strings.Join(u.In, ", ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV renders one row per matched cell and run.
func CSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"scenario", "cell", "run", "n", "rps_median", "rps_ci_lo", "rps_ci_hi", "rps_min", "rps_max", "delta_vs_first", "p_value", "significant"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, sc := range c.Scenarios {
		for _, l := range sc.Lines {
			for i, s := range l.Stats {
				lo, hi := "", ""
				if s.HasCI {
					lo, hi = f(s.Lo), f(s.Hi)
				}
				cw.Write([]string{sc.Name, l.Cell, c.Names[i], strconv.Itoa(s.N), f(s.Median), lo, hi, f(s.Min), f(s.Max),
					f(l.Delta[i]), f(l.Test[i].P), strconv.FormatBool(l.Test[i].Significant)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
