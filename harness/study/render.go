package study

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/webbench/webbench/harness/internal/mdtable"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

func num(x float64) string { return numfmt.Sig(x) }

// Render writes the study's README.md: its setup, every claim with its
// computed verdict and the checklist behind it, the runs, and the drift
// of cells measured more than once. Everything in it comes from study.yaml
// and the runs: rendering twice gives the same bytes.
func Render(w io.Writer, dir string, f *File, runs []*Run, js []Judgement) error {
	if err := Errors(js); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Study %s — %s\n\n", f.Study, mdtext.Text(f.Title))
	fmt.Fprintf(&b, "<!-- Rendered by `harness study %s` from study.yaml and the runs below; do not edit. -->\n\n", dir)
	fmt.Fprintf(&b, "The study's text is `shared/seeds/%s` (not in this repository). Each claim below is quoted from it, "+
		"and each verdict is computed from the committed runs by the rules in [How verdicts are computed](#how-verdicts-are-computed).\n\n", f.Seed)
	counts(&b, js)
	if err := summary(&b, js); err != nil {
		return err
	}
	setupSection(&b, f.Setup)
	b.WriteString("## Claims\n\n")
	for _, j := range js {
		claim(&b, f, j)
	}
	if err := contextSection(&b, f, runs); err != nil {
		return err
	}
	if err := runsSection(&b, runs); err != nil {
		return err
	}
	if err := driftSection(&b, runs); err != nil {
		return err
	}
	reproduce(&b, f)
	b.WriteString(rules)
	_, err := w.Write(b.Bytes())
	return err
}

// Errors are the faults of study.yaml that the runs show (a
// not_testable_here they contradict), each at its file, line and field;
// nil when there is none. A README is not rendered over them.
func Errors(js []Judgement) error {
	var errs matrix.Errors
	for _, j := range js {
		if j.Err != nil {
			errs = append(errs, j.Err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// counts is one line: how many claims got each verdict.
func counts(b *bytes.Buffer, js []Judgement) {
	n := map[Verdict]int{}
	for _, j := range js {
		n[j.Verdict]++
	}
	var parts []string
	for _, v := range Verdicts {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	fmt.Fprintf(b, "**%d claims:** %s.\n\n", len(js), strings.Join(parts, ", "))
}

func summary(b *bytes.Buffer, js []Judgement) error {
	t := mdtable.New(b)
	t.Header("claim", "the study says", "verdict", "run")
	for _, j := range js {
		said := j.Claim.English
		if said == "" {
			said = j.Claim.Quote
		}
		var used []string
		for _, m := range j.Measures {
			if name := runLink(m.Run); !contains(used, name) {
				used = append(used, name)
			}
		}
		verdict := "**" + string(j.Verdict) + "**"
		if j.Claim.SeedDefect != "" {
			verdict += " ⚑ seed defect"
		}
		t.Append(fmt.Sprintf("[%s](#%s)", j.Claim.ID, j.Claim.ID), mdtext.Text(said), verdict, strings.Join(used, ", "))
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\n")
	return nil
}

func runLink(r *Run) string {
	s := fmt.Sprintf("[%s](%s/README.md)", path.Base(r.Name), r.Name)
	if d := r.Dirty(); d != "" {
		s += " ⚠"
	}
	return s
}

func setupSection(b *bytes.Buffer, s Setup) {
	b.WriteString("## How the study ran\n\n")
	line := func(name, v string) {
		if v == "" {
			v = "not stated"
		}
		fmt.Fprintf(b, "- **%s:** %s\n", name, mdtext.Text(v))
	}
	line("tool", strings.TrimSpace(s.Tool+" "+s.ToolVersion))
	line("load", loadText(s.Connections, s.Requests, s.Duration))
	line("pinning", s.Pinning)
	if s.Cores > 0 {
		line("cores", fmt.Sprint(s.Cores))
	} else {
		line("cores", "")
	}
	line("machine", s.Machine)
	line("os", s.OS)
	var servers []string
	for _, sv := range s.Servers {
		servers = append(servers, fmt.Sprintf("%s (here: %s)", sv.Name, sv.Target))
	}
	line("servers", strings.Join(servers, "; "))
	st := s.Statistic
	if s.Words != "" {
		st += ": " + s.Words
	}
	if s.Runs == 1 {
		st += " (of one run)"
	} else if s.Runs > 1 {
		st += fmt.Sprintf(" (of %d runs)", s.Runs)
	}
	line("statistic", st)
	if len(s.Unstated) > 0 {
		line("not stated by the study", strings.Join(s.Unstated, ", "))
	}
	b.WriteString("\nA claim made on another machine or with another load is held to its own setup, shown with it.\n\n")
}

// claim writes one claim: its words, its verdict, and each measure.
func claim(b *bytes.Buffer, f *File, j Judgement) {
	c := j.Claim
	fmt.Fprintf(b, "### %s\n\n", c.ID)
	fmt.Fprintf(b, "> %s\n", mdtext.Text(c.Quote))
	if c.English != "" {
		fmt.Fprintf(b, ">\n> *In English:* %s\n", mdtext.Text(c.English))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "- **Verdict: %s.** %s.\n", j.Verdict, mdtext.Text(capital(strings.TrimSuffix(j.Why, "."))))
	if c.Figures != "" {
		fmt.Fprintf(b, "- **The study's figures** (%s): %s\n", mdtext.Text(c.Unit), mdtext.Text(c.Figures))
	}
	if c.SeedDefect != "" {
		fmt.Fprintf(b, "- **⚑ A defect of the seed:** %s.\n", mdtext.Text(strings.TrimSuffix(c.SeedDefect, ".")))
	}
	if c.Setup != nil {
		fmt.Fprintf(b, "- **Its own setup:** %s\n", mdtext.Text(ownSetup(*c.Setup)))
	}
	if c.NotTestableHere != "" {
		fmt.Fprintf(b, "- **The study file's note** (checked against the runs above): %s.\n", mdtext.Text(strings.TrimSuffix(c.NotTestableHere, ".")))
	}
	lead := "Measured"
	if j.Verdict == NotAsStated || j.Verdict == NotHere {
		lead = "Measured instead"
	}
	for _, m := range j.Measures {
		measureLines(b, lead, c, j.Setup, m)
	}
	for _, m := range j.Missing {
		what := mdtext.Code(m.A)
		if m.B != "" {
			what += " ÷ " + mdtext.Code(m.B)
		}
		fmt.Fprintf(b, "- **Not measured:** %s: %s.\n", what, mdtext.Text(strings.TrimSuffix(m.Why, ".")))
	}
	b.WriteString("\n")
}

func ownSetup(s Setup) string {
	var parts []string
	add := func(k, v string) {
		if v != "" && v != "0" {
			parts = append(parts, k+" "+v)
		}
	}
	add("tool", strings.TrimSpace(s.Tool+" "+s.ToolVersion))
	add("load", loadText(s.Connections, s.Requests, s.Duration))
	add("pinning", s.Pinning)
	add("cores", fmt.Sprint(s.Cores))
	add("machine", s.Machine)
	add("os", s.OS)
	if s.Across != "" {
		parts = append(parts, "across "+s.Across)
	}
	add("statistic", s.Statistic)
	if len(s.Unstated) > 0 {
		parts = append(parts, "not stated: "+strings.Join(s.Unstated, ", "))
	}
	return strings.Join(parts, "; ")
}

func measureLines(b *bytes.Buffer, lead string, c *Claim, s Setup, m Measure) {
	t := c.Test
	fmt.Fprintf(b, "- **%s** in %s", lead, runLink(m.Run))
	if d := m.Run.Dirty(); d != "" {
		fmt.Fprintf(b, " (⚠ %s: %s)", d, m.Run.Environment.HarnessVersion)
	}
	switch {
	case t.Expect == "fails":
		fmt.Fprintf(b, ": %s %s; %s is its baseline.", mdtext.Code(m.A), mdtext.Text(m.Failed), mdtext.Code(m.B))
	case t.Expect == "no_errors":
		fmt.Fprintf(b, ": %s %s%s.", mdtext.Code(m.A), mdtext.Text(m.Failed), reading(c, m))
	case m.B == "":
		fmt.Fprintf(b, ": %s, %s (%s): **%s** (%s)%s.",
			mdtext.Code(m.A), metricText[t.Metric], statName(s.Statistic, true), num(m.Ratio.Value),
			strings.ReplaceAll(interval(m.Ratio), "pair", "trial"), reading(c, m))
	default:
		fmt.Fprintf(b, ": %s ÷ %s in %s (%s): **%s×** (%s)%s.",
			mdtext.Code(m.A), mdtext.Code(m.B), t.Metric, statName(s.Statistic, false), num(m.Ratio.Value), interval(m.Ratio), reading(c, m))
	}
	switch {
	case t.Expect == "no_errors":
	case m.HasFloor:
		fmt.Fprintf(b, " A/A floor ±%.1f%% (%s).", m.Floor.Percent(), mdtext.Code(m.Floor.Cell))
	default:
		b.WriteString(" No A/A control in that run: no floor, so no reading.")
	}
	b.WriteString("\n  - Checklist: ")
	var items []string
	for _, it := range m.Checklist {
		items = append(items, itemText(it))
	}
	b.WriteString(strings.Join(items, " · "))
	b.WriteString("\n")
	for _, d := range m.Drift {
		fmt.Fprintf(b, "  - ⚠ Drift: %s.\n", mdtext.Text(d))
	}
	for _, d := range m.Doubts {
		fmt.Fprintf(b, "  - Cannot tell: %s.\n", mdtext.Text(d))
	}
	if len(m.Also) > 0 {
		fmt.Fprintf(b, "  - Also in: %s.\n", strings.Join(m.Also, ", "))
	}
}

// reading is what the figure says against the claim, beyond or within the
// floor: nothing without a floor, and nothing for a claim whose wording no
// measurement can test.
func reading(c *Claim, m Measure) string {
	if m.Reads == "" || c.Untestable != "" {
		return ""
	}
	return fmt.Sprintf(", reads %s %s", m.Reads, expectText(c.Test))
}

// metricText names a one-cell metric as a measure line shows it.
var metricText = map[string]string{
	"cpu_split": "the server's CPU ÷ the load generator's",
	"cpu_busy":  "the CPU of the server and the load generator ÷ the cores they ran on",
}

// statName says how a ratio (or, oneCell, a cell's own figure) was read.
func statName(s string, oneCell bool) string {
	switch {
	case s == "best" && oneCell:
		return "in the best trial by req/s"
	case s == "best":
		return "best trial over best trial"
	case s == "single" && oneCell:
		return "each trial one run: the median, and where one run could land"
	case s == "single":
		return "each trial pair one run: the median, and where one run's ratio could land"
	case oneCell:
		return "median of the trials"
	}
	return "median of trial ratios"
}

func interval(r Ratio) string {
	switch {
	case r.N == 1:
		return "one pair"
	case r.HasCI:
		return fmt.Sprintf("%s…%s, 95%% CI of %d pairs", num(r.Lo), num(r.Hi), r.N)
	}
	return fmt.Sprintf("%s…%s, min…max of %d pairs", num(r.Lo), num(r.Hi), r.N)
}

func expectText(t *Test) string {
	v := t.Value
	if v == 0 {
		v = 1
	}
	switch t.Expect {
	case "no_errors":
		return "against the claim's no failed request"
	case "about":
		return fmt.Sprintf("against the claim's %s× ±%s", num(v), numfmt.Percent(t.Tolerance))
	case "greater":
		return fmt.Sprintf("against the claim's > %s×", num(v))
	}
	return fmt.Sprintf("against the claim's < %s×", num(v))
}

func itemText(it Item) string {
	switch {
	case it.NotStated:
		return fmt.Sprintf("○ %s: not stated by the study, so not shown to match (here %s)", it.Name, mdtext.Text(it.Seen))
	case it.OK:
		return fmt.Sprintf("✓ %s: %s", it.Name, mdtext.Text(it.Seen))
	}
	return fmt.Sprintf("✗ %s: the study %s, here %s", it.Name, mdtext.Text(it.Want), mdtext.Text(it.Seen))
}

func capital(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// contextSection shows the figures of the cells study.yaml names beside
// its claims, in every run that measured them: the study's statistic
// (the best trial where it kept its best, else the median) and the
// trials' min…max, computed here, never copied.
func contextSection(b *bytes.Buffer, f *File, runs []*Run) error {
	if len(f.Context) == 0 {
		return nil
	}
	b.WriteString("## Measured beside the claims\n\n")
	t := mdtable.New(b)
	t.Header("cell", "run", "metric", statName(f.Setup.Statistic, true), "min…max of the trials", "trials", "what it says")
	for _, sh := range f.Context {
		found := false
		for _, r := range runs {
			c := r.cell(sh.Cell)
			if c == nil || c.Status != results.OK {
				continue
			}
			get := metricOf(sh.Metric, r, c)
			fig, ok := cellRatio(c, get, f.Setup.Statistic)
			all, _ := cellRatio(c, get, "single")
			if !ok {
				continue
			}
			found = true
			t.Append(mdtext.Code(sh.Cell), runLink(r), sh.Metric, num(fig.Value), num(all.Lo)+"…"+num(all.Hi), fmt.Sprint(all.N), mdtext.Text(sh.Why))
		}
		if !found {
			t.Append(mdtext.Code(sh.Cell), "no run measured it", sh.Metric, "", "", "", mdtext.Text(sh.Why))
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\n")
	return nil
}
