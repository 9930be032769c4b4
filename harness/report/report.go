// Package report renders a run's results.json as the Markdown a reviewer
// reads. It reads nothing but the results.Run it is given, so every report
// can be regenerated without Docker, and the same input gives the same bytes.
package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/webbench/webbench/harness/results"
)

// Markdown writes the run's README.md.
func Markdown(w io.Writer, run *results.Run) error {
	b := &strings.Builder{}
	env := run.Environment
	fmt.Fprintf(b, "# Results: %s\n\n", env.Label)
	if run.Interrupted {
		b.WriteString("**This run was interrupted; only the cells below were measured.**\n\n")
	}
	fmt.Fprintf(b, "- Machine: %s, %d online CPUs, kernel %s\n", env.CPUModel, env.OnlineCPUs, env.Kernel)
	fmt.Fprintf(b, "- Docker: engine %s (API %s, %s), network mode `%s`\n", env.DockerVersion, env.DockerAPI, env.StorageDriver, env.NetworkMode)
	fmt.Fprintf(b, "- Harness: %s, load generator %s\n", env.HarnessVersion, env.LoadGenerator)
	fmt.Fprintf(b, "- Started: %s\n", env.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	m := run.Matrix
	profile := m.Profile
	if profile == "" {
		profile = "(none)"
	}
	how := "duration " + m.Load.Duration
	if m.Load.Requests > 0 {
		how = fmt.Sprintf("%d requests", m.Load.Requests)
	}
	agg := m.Load.Aggregate
	if agg == "" {
		agg = "median"
	}
	fmt.Fprintf(b, "- Matrix: `%s`, profile `%s`; each trial %s, warm-up %s, %d trial(s), %s shown; load generator on %d core(s)\n",
		m.File, profile, how, m.Load.Warmup, m.Load.Trials, agg, m.Load.LoadgenCPUs)
	if m.Only != "" {
		fmt.Fprintf(b, "- Cells selected with `--only %s`\n", m.Only)
	}
	b.WriteString("\n")

	if err := baseImages(b, run); err != nil {
		return err
	}
	for _, sc := range scenarios(run) {
		if err := scenarioTable(b, run, sc); err != nil {
			return err
		}
	}
	notOK(b, run)
	_, err := io.WriteString(w, b.String())
	return err
}

func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
}

func baseImages(b *strings.Builder, run *results.Run) error {
	if len(run.Images) == 0 {
		return nil
	}
	b.WriteString("## Base images\n\n")
	t := newTable(b)
	t.Header("key", "matrix asks for", "built on", "how")
	keys := make([]string, 0, len(run.Images))
	for k := range run.Images {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		bi := run.Images[k]
		used, how := bi.Used, "official image"
		switch {
		case bi.Error != "":
			used, how = "—", "unavailable: "+bi.Error
		case bi.StandIn:
			how = "local stand-in: " + bi.Note
		}
		if err := t.Append(k, "`"+bi.Official+"`", "`"+used+"`", oneLine(how)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\n")
	return nil
}

// scenarios lists scenario names in the matrix's order, then any others.
func scenarios(run *results.Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range run.Matrix.Scenarios {
		seen[s.Name] = true
		out = append(out, s.Name)
	}
	for _, c := range run.Cells {
		if !seen[c.Scenario] {
			seen[c.Scenario] = true
			out = append(out, c.Scenario)
		}
	}
	return out
}

// group is the cells that compete with each other: same scenario params,
// cores and connections.
type group struct {
	params      string
	cpus, conns int
}

func groupOf(c *results.Cell) group {
	return group{paramText(c), c.CPUs, c.Connections}
}

func paramText(c *results.Cell) string {
	k := c.Key()
	return strings.TrimPrefix(strings.TrimPrefix(k.ScenarioName(), k.Scenario), "?")
}

// scenarioTable writes one table of the scenario's ok cells, grouped by
// params (in matrix order), cores, then connections, fastest first within a
// group; "vs fastest" compares each cell with the fastest of its group.
func scenarioTable(b *strings.Builder, run *results.Run, scenario string) error {
	var cells []*results.Cell
	order := map[string]int{}
	for _, c := range run.Cells {
		if c.Scenario != scenario {
			continue
		}
		if _, ok := order[paramText(c)]; !ok {
			order[paramText(c)] = len(order)
		}
		if c.Status == results.OK && c.Summary != nil {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	sort.SliceStable(cells, func(i, j int) bool {
		a, c := cells[i], cells[j]
		if pa, pc := order[paramText(a)], order[paramText(c)]; pa != pc {
			return pa < pc
		}
		if a.CPUs != c.CPUs {
			return a.CPUs < c.CPUs
		}
		if a.Connections != c.Connections {
			return a.Connections < c.Connections
		}
		if a.Summary.RPS != c.Summary.RPS {
			return a.Summary.RPS > c.Summary.RPS
		}
		return a.Key().TargetName() < c.Key().TargetName()
	})
	fastest := map[group]float64{}
	hasParams := false
	for _, c := range cells {
		fastest[groupOf(c)] = max(fastest[groupOf(c)], c.Summary.RPS)
		hasParams = hasParams || len(c.Params) > 0
	}
	agg := cells[0].Summary.Aggregate
	if agg == "" {
		agg = "median"
	}
	fmt.Fprintf(b, "## %s\n\n", scenario)
	t := newTable(b)
	header := []any{"target"}
	if hasParams {
		header = append(header, "params")
	}
	header = append(header, "cores", "conns", "RPS ("+agg+")", "min…max", "vs fastest", "p50 ms", "p99 ms", "errors", "target CPU", "peak MiB", "runtime")
	t.Header(header...)
	bound := false
	for _, c := range cells {
		s := c.Summary
		rps := Sig(s.RPS)
		if s.GeneratorBound > 0 {
			rps += " †"
			bound = true
		}
		ratio := "—"
		if f := fastest[groupOf(c)]; f > 0 {
			ratio = Sig(s.RPS/f) + "×"
		}
		runtime := ""
		if c.Image != nil {
			runtime = c.Image.RuntimeVersion
		}
		row := []any{c.Key().TargetName()}
		if hasParams {
			row = append(row, paramText(c))
		}
		row = append(row, strconv.Itoa(c.CPUs), strconv.Itoa(c.Connections), rps,
			Sig(s.RPSMin)+"…"+Sig(s.RPSMax), ratio, Sig(s.LatencyP50Median), Sig(s.LatencyP99Median),
			strconv.FormatInt(s.Errors, 10), Sig(s.TargetCPUCores), Sig(s.TargetMemPeakMiB), runtime)
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if bound {
		fmt.Fprintf(b, "\n† the load generator used ≥ %.0f%% of its cores in at least one trial: that number is a floor set by bombardier, not the server's limit.\n", results.GeneratorBoundShare*100)
	}
	b.WriteString("\n")
	return nil
}

func notOK(b *strings.Builder, run *results.Run) {
	for _, status := range []string{results.Failed, results.Skipped} {
		var lines []string
		for _, c := range run.Cells {
			if c.Status == status {
				lines = append(lines, fmt.Sprintf("- `%s`: %s", c.ID(), oneLine(c.Reason)))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(b, "## %s cells\n\n%s\n\n", strings.ToUpper(status[:1])+status[1:], strings.Join(lines, "\n"))
		}
	}
	var warns []string
	for _, c := range run.Cells {
		if len(c.Warnings) > 0 {
			warns = append(warns, fmt.Sprintf("- `%s`: %s", c.ID(), oneLine(strings.Join(c.Warnings, "; "))))
		}
	}
	if len(warns) > 0 {
		fmt.Fprintf(b, "## Warnings\n\n%s\n", strings.Join(warns, "\n"))
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if r := []rune(s); len(r) > 400 {
		s = string(r[:400]) + "…"
	}
	return s
}

// Sig formats x to three significant figures, with thousands separators
// for large values: 123456 → "123,000", 1.23456 → "1.23", 0.0123 → "0.0123".
func Sig(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	decimals := 2 - int(math.Floor(math.Log10(math.Abs(r))))
	if decimals > 0 {
		return strconv.FormatFloat(r, 'f', decimals, 64)
	}
	return thousands(strconv.FormatFloat(r, 'f', 0, 64))
}

func thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
