package report

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// markdown renders run's README.md as WriteDir does.
func markdownOf(t *testing.T, run *results.Run) []byte {
	t.Helper()
	charts, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := markdown(&b, run, charts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMarkdownGolden(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	a, b := markdownOf(t, run), markdownOf(t, run)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of the same run differ")
	}
	goldenFile(t, "run.md", a)
}

// Charts are deterministic for the same results.json and match the golden
// SVGs in testdata/charts.
func TestChartsGolden(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Charts(run)
	var names []string
	for i, c := range a {
		names = append(names, c.File)
		if !bytes.Equal(c.SVG, b[i].SVG) {
			t.Errorf("%s: two renderings differ", c.File)
		}
		goldenFile(t, "charts/"+c.File, c.SVG)
	}
	// records has two groups (n=10, n=500): a latency chart each.
	want := "rps-plaintext.svg latency-plaintext.svg rps-records.svg rps-vs-param-records.svg latency-records-1cpu-c64-n_10.svg latency-records-1cpu-c64-n_500.svg"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts = %s, want %s", got, want)
	}
}

// Cells at several connection counts are drawn as groups of bars, one
// group per target and one colored bar per connection count, and a group
// names the counts at which it was generator-bound; the ratio table against
// a connection count pairs each cell with its twin at that count.
func TestChartsGroupedByConnections(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	var more []*results.Cell
	for _, c := range run.Cells {
		if c.Scenario != "plaintext" || c.Status != results.OK {
			continue
		}
		twin, s := *c, *c.Summary
		twin.Connections, twin.Summary = 256, &s
		s.RPS, s.RPSMedian, s.RPSMax = 1.5*s.RPS, 1.5*s.RPSMedian, 1.5*s.RPSMax
		twin.Trials = slices.Clone(c.Trials)
		for i := range twin.Trials {
			twin.Trials[i].RPS *= 1.5
		}
		if c.Target == "fast" { // bound at c64 already
			s.BoundBy = []string{"load generator CPU ≥ 90% in 1 trial(s)"}
		}
		more = append(more, &twin)
	}
	run.Cells = append(run.Cells, more...)
	charts, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	var svg string
	for _, c := range charts {
		if c.File == "rps-plaintext.svg" {
			svg = string(c.SVG)
			goldenFile(t, "charts/rps-plaintext-by-connections.svg", c.SVG)
		}
	}
	for _, want := range []string{">c64<", ">c256<", ">fast †c64,c256<", ">slow<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("grouped bars lack %q", want)
		}
	}
	run.Matrix.RelativeTo = []cellid.Relative{{Connections: 64}}
	md := string(markdownOf(t, run))
	if !strings.Contains(md, "## Relative to connections `64`") {
		t.Error("README lacks the table against c64")
	}
	// slow's three trials at c256 are its c64 trials × 1.5, pair by pair.
	row := regexp.MustCompile(`\| slow/plaintext/1cpu/c256 +\| slow/plaintext/1cpu/c64 +\|[^\n]*\| +1\.50× +\| +1\.50…1\.50 \(min…max\) +\| +3 +\| +\+50% `)
	if !row.MatchString(md) {
		t.Errorf("README lacks slow at c256 over c64 as 1.50× from 3 pairs:\n%s", md[strings.Index(md, "## Relative to connections"):])
	}
}

// A run on two engines shows both machines side by side.
func TestMarkdownTwoMachines(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Environment.Link = "veth | pair"
	run.Environment.Machines = []results.Machine{
		{Role: results.RoleTarget, Engine: "server", Host: "tcp://10.0.0.5:2375", Address: "10.0.0.5", CPUModel: "CPU A", OnlineCPUs: 8, Reserved: 1, Kernel: "6.1"},
		{Role: results.RoleLoadgen, Engine: "client", Host: "unix:///var/run/docker.sock", CPUModel: "CPU B", OnlineCPUs: 4, Kernel: "6.2"},
	}
	md := string(markdownOf(t, run))
	for _, want := range []string{
		"targets on engine `server`, the load generator on engine `client`",
		`the link between them: veth \| pair`,
		"| CPU         | CPU A",
		"| CPU B",
		"8 (1 reserved)",
		"| reached at  | 10.0.0.5",
	} {
		if !strings.Contains(squash(md), squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, md[:min(len(md), 2500)])
		}
	}
	if strings.Contains(md, "- Machine: ") {
		t.Error("a run on two machines still has the one-machine line")
	}
}

// A run whose load came from several generators shows every generator
// machine beside the targets'.
func TestMarkdownSeveralGenerators(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Environment.Machines = []results.Machine{
		{Role: results.RoleTarget, Engine: "server", Host: "tcp://10.0.0.5:2375", Address: "10.0.0.5", CPUModel: "CPU A", OnlineCPUs: 8},
		{Role: results.RoleLoadgen, Engine: "server", Host: "tcp://10.0.0.5:2375", CPUModel: "CPU A", OnlineCPUs: 8},
		{Role: results.RoleLoadgen, Engine: "client2", Host: "ssh://bench@10.0.0.7", CPUModel: "CPU C", OnlineCPUs: 16},
	}
	md := squash(string(markdownOf(t, run)))
	for _, want := range []string{
		"targets on engine `server`; each cell's load divided among generators on engines `server`, `client2`, started together",
		"| | targets | load generator server | load generator client2 |",
		"| CPU | CPU A | CPU A | CPU C |",
		"| online CPUs | 8 | 8 | 16 |",
		"| reached at | 10.0.0.5 | | |",
	} {
		if !strings.Contains(md, squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, md[:min(len(md), 2500)])
		}
	}
}

// A ratio table pairs each cell with its baseline trial by trial.
func TestRelativeTable(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	run.Matrix.RelativeTo = []cellid.Relative{{Variant: "single"}, {Target: "slow"}, {Scenario: "json"}}
	md := string(markdownOf(t, run))
	for _, want := range []string{
		"## Relative to variant `single`",
		"| svc:cluster/records?n=10/1cpu/c64  | svc:single/records?n=10/1cpu/c64  | 15,000     | 9,000               | 1.67× | 1.67…1.67 (min…max) | 1     | too few pairs",
		"## Relative to target `slow`",
		"| fast/plaintext/1cpu/c64",
		"(min…max)",
		"## Relative to scenario `json`\n\nNo ok cell has an ok baseline with scenario `json`.",
	} {
		if !strings.Contains(squash(md), squash(want)) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, tc := range []struct {
		r        analysis.PairedRatio
		down, up float64
		want     string
	}{
		{analysis.PairedRatio{N: 6, Ratio: 0.5, Lo: 0.4, Hi: 0.6, HasCI: true}, 0.1, 0.1, "-50%"},
		{analysis.PairedRatio{N: 6, Ratio: 0.25, Lo: 0.18, Hi: 0.32, HasCI: true}, 0.2, 0.7, "-75%"}, // up-noise does not hide a drop
		{analysis.PairedRatio{N: 6, Ratio: 1.4, Lo: 1.3, Hi: 1.5, HasCI: true}, 0.2, 0.7, "+40%, within noise"},
		{analysis.PairedRatio{N: 3, Ratio: 1.05, Lo: 1.01, Hi: 1.09}, 0.1, 0.1, "+5%, within noise"},
		{analysis.PairedRatio{N: 6, Ratio: 1.05, Lo: 0.9, Hi: 1.2}, 0, 0, "no difference shown"},
		{analysis.PairedRatio{N: 2, Ratio: 2, Lo: 1.9, Hi: 2.1}, 0, 0, "too few pairs"},
	} {
		if got := reading(tc.r, tc.down, tc.up); got != tc.want {
			t.Errorf("reading(%+v, %v, %v) = %q, want %q", tc.r, tc.down, tc.up, got, tc.want)
		}
	}
}

// Whatever a user or a machine supplied reaches the README escaped: no
// HTML tag opens, no pipe splits a table row, no backtick ends a code span,
// and a forged huge number reads as a number.
// The settings a run was given on the command line are said beside its
// profile, as --set repeats them.
func TestMarkdownSettingsGiven(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	if md := string(markdownOf(t, run)); strings.Contains(md, "on the command line") {
		t.Errorf("a run given no settings says it was")
	}
	run.Matrix.Set = []string{"load.trials=1", "connections=[64, 256]"}
	want := "- Settings given on the command line, over the profile: `--set load.trials=1` `--set connections=[64, 256]`\n"
	if md := string(markdownOf(t, run)); !strings.Contains(md, want) {
		t.Errorf("README lacks %q:\n%s", want, md)
	}
}

func TestMarkdownInjection(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	evil := "<img src=x onerror=alert(1)>"
	run.Environment.Label = "lab|el" + evil
	run.Environment.CPUModel = "cpu|model`" + evil
	run.Environment.HarnessVersion = "v1`|" + evil
	run.Matrix.Only = "a`b|c"
	run.Matrix.Set = []string{"load.trials=`" + evil}
	for _, c := range run.Cells {
		c.Target = "a|b|c" + evil
		c.Params = []cellid.KV{{Name: "records", Value: evil + "|x`"}}
		c.Warnings = append(c.Warnings, evil)
		if c.Image != nil {
			c.Image.RuntimeVersion = "node|" + evil
		}
		if c.Summary != nil {
			c.Summary.RPSMax = 1e308
		}
	}
	md := string(markdownOf(t, run))
	// Inside a code span an angle bracket is text; outside it must be an entity.
	if strings.Contains(regexp.MustCompile("`[^`\n]*`").ReplaceAllString(md, ""), "<img") {
		t.Errorf("an HTML tag reached the README:\n%s", md)
	}
	if strings.Contains(md, "1000000000000000") {
		t.Errorf("a huge number printed digit by digit")
	}
	// Every row of a table has as many unescaped pipes as its header.
	pipes := regexp.MustCompile(`(^|[^\\])\|`)
	want := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		n := len(pipes.FindAllString(line, -1))
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("row with %d cells' pipes, header %d: %s", n, want, line)
		}
	}
	// Code spans open and close on the same line.
	for _, line := range strings.Split(md, "\n") {
		if strings.Count(line, "`")%2 != 0 {
			t.Errorf("unbalanced backticks: %s", line)
		}
	}
}

// squash collapses runs of spaces, so that a test of a table's cells does
// not depend on the padding of its columns.
func squash(s string) string { return spaces.ReplaceAllString(s, " ") }

var spaces = regexp.MustCompile(` +`)

// mainTableHeaders are the header cells of each scenario's main table: the
// first table after its "## " heading, or, in a scenario measured only at
// fixed rates, its fixed-rate table, which then leads it.
func mainTableHeaders(md string) map[string][]string {
	out := map[string][]string{}
	scenario, current := "", ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			scenario = strings.TrimPrefix(line, "## ")
			current = scenario
		case strings.HasPrefix(line, "### ") && strings.HasSuffix(line, " at a fixed rate") && out[current] == nil:
			scenario = current
		case strings.HasPrefix(line, "### "):
			scenario = "" // a sub-table
		case scenario != "" && strings.HasPrefix(line, "|") && out[scenario] == nil:
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out[scenario] = cells
		}
	}
	return out
}

// A scenario's main table keeps to mainColumns however many settings its
// cells span (params, cores, connections with and without keep-alive),
// with A/A controls, a generator-bound cell and a failed one among them:
// past that GitHub scrolls it sideways. What it leaves out is in the
// details table.
func TestMainTableColumns(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	var more []*results.Cell
	for _, c := range run.Cells {
		if c.Status != results.OK {
			continue
		}
		for i, variant := range []struct {
			cpus, conns int
			close       bool
		}{{2, 256, false}, {1, 64, true}} {
			twin := *c
			twin.CPUs, twin.Connections, twin.Close = variant.cpus, variant.conns, variant.close
			twin.Control = i == 0
			more = append(more, &twin)
		}
	}
	run.Cells = append(run.Cells, more...)
	md := string(markdownOf(t, run))
	headers := mainTableHeaders(md)
	if len(headers) < 2 {
		t.Fatalf("found the main tables of %d scenarios, want 2:\n%s", len(headers), md)
	}
	for sc, h := range headers {
		if len(h) > mainColumns {
			t.Errorf("%s: the main table has %d columns, want at most %d: %q", sc, len(h), mainColumns, h)
		}
	}
	if h := headers["records"]; len(h) < 3 || h[2] != "params · cores · conns" {
		t.Errorf("records: the settings that differ are not one column: %q", h)
	}
	if !strings.Contains(squash(md), squash("| svc:cluster | n=10 · 1 · 64, close |")) { // after its rank
		t.Errorf("records: a row lacks its params, cores and connections:\n%s", md)
	}
	for _, want := range []string{"### plaintext: details", "### records: details"} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// A scenario measured only at fixed rates leads with its fixed-rate table,
// which keeps to mainColumns too, however many loops, params, cores and
// connections its cells span: what differs takes one column, what every
// row shares one line above it.
func TestFixedRateTableColumns(t *testing.T) {
	run := &results.Run{FinishedAt: &time.Time{}}
	for i, v := range []struct {
		open        bool
		params      []results.KV
		cpus, conns int
		close       bool
	}{{true, []results.KV{{Name: "n", Value: "1"}}, 1, 64, false}, {false, []results.KV{{Name: "n", Value: "2"}}, 2, 64, true}} {
		c := &results.Cell{Target: "t", Scenario: "plaintext", Params: v.params, CPUs: v.cpus, Connections: v.conns, Close: v.close, Rate: 1000 * (i + 1), Status: results.OK}
		tr := results.Trial{Result: results.Result{RPS: 900, Requests: 9000, Seconds: 10, LatencyMS: results.Latency{P50: 1, P99: 2, Max: 3}}, TargetCPUCores: 0.5}
		if v.open {
			tr.OpenLoop = &results.Schedule{}
		}
		c.Trials = []results.Trial{tr, tr}
		c.Summary = analysis.Summarize(c.Trials, results.AggregateMedian)
		run.Cells = append(run.Cells, c)
	}
	h := mainTableHeaders(string(markdownOf(t, run)))["plaintext"]
	if len(h) == 0 || len(h) > mainColumns {
		t.Errorf("the fixed-rate table has %d columns, want 1 to %d: %q", len(h), mainColumns, h)
	}
	if len(h) > 1 && h[1] != "loop · params · cores · conns" {
		t.Errorf("the settings that differ are not one column: %q", h)
	}
	for _, dir := range committedSets(t, "../..") {
		run, err := results.Read(filepath.Join("../../results", dir))
		if err != nil {
			t.Fatal(err)
		}
		for sc, h := range mainTableHeaders(string(markdownOf(t, run))) {
			if len(h) > mainColumns {
				t.Errorf("results/%s: %s's main table has %d columns, want at most %d: %q", dir, sc, len(h), mainColumns, h)
			}
		}
	}
}

// An interval column's header names what its cells hold: a header that
// hedges on a trial count ("95% CI (min…max under 6 trials)") reads as a
// claim about the run. Only where cells of both kinds share the column
// does a cell say which it is.
func TestIntervalHeader(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	// plaintext's cells have 1 and 3 trials: min…max, or none.
	if h := mainTableHeaders(string(markdownOf(t, run)))["plaintext"]; !slices.Contains(h, "RPS, median (min…max)") {
		t.Errorf("plaintext's main table does not say its intervals are min…max: %q", h)
	}
	six := stats.Describe([]float64{10, 11, 12, 13, 14, 15})
	three := stats.Describe([]float64{10, 11, 12})
	one := stats.Describe([]float64{10})
	for _, tc := range []struct {
		best       bool
		cells      []stats.Summary
		name, text string // text of the last cell
	}{
		{false, []stats.Summary{six, six}, "95% CI", numfmt.Sig(six.Lo) + "…" + numfmt.Sig(six.Hi)},
		{false, []stats.Summary{three, one}, "min…max", "—"},
		{false, []stats.Summary{three}, "min…max", "10.0…12.0"},
		{false, []stats.Summary{six, three}, "95% CI, or min…max where so marked", "min…max 10.0…12.0"},
		{true, []stats.Summary{six}, "min…max", "10.0…15.0"},
		{false, []stats.Summary{one}, "", "—"},
	} {
		sp := spreadOf(tc.best)
		for _, s := range tc.cells {
			sp.add(s)
		}
		if got := sp.name(); got != tc.name {
			t.Errorf("%+v: header %q, want %q", tc, got, tc.name)
		}
		if got := sp.text(tc.cells[len(tc.cells)-1], numfmt.Sig); got != tc.text {
			t.Errorf("%+v: cell %q, want %q", tc, got, tc.text)
		}
		if strings.Contains(sp.name(), "6") {
			t.Errorf("header %q names a trial count", sp.name())
		}
	}
}

// A cell measured in part (a killed run's, or one still running) is shown
// as such: said at the top, listed with its trials done and asked, and in
// no table or CSV row, where its figures would pass for a finished cell's.
func TestPartialCellNotShownAsOK(t *testing.T) {
	run, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	c := run.Cells[0]
	if c.Status != results.OK || len(c.Trials) < 2 {
		t.Fatalf("testdata/run's first cell: %s with %d trials, want ok with 2 or more", c.Status, len(c.Trials))
	}
	id := c.ID()
	c.Status, c.TrialsAsked, c.Trials = results.Partial, len(c.Trials), c.Trials[:len(c.Trials)-1]
	md := string(markdownOf(t, run))
	head, list, ok := strings.Cut(md, "## Partial cells\n")
	want := fmt.Sprintf("- `%s`: %d of %d trials measured", id, len(c.Trials), c.TrialsAsked)
	if !ok || !strings.Contains(list, want) || !strings.Contains(head, "**1 cell(s) measured in part**") {
		t.Errorf("README lacks the partial cell (%q) or the word of it at the top:\n%s", want, md)
	}
	if strings.Contains(head, "`"+id+"`") {
		t.Errorf("the partial cell %s is shown before its own section:\n%s", id, head)
	}
	var csv bytes.Buffer
	if err := CSV(context.Background(), &csv, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), id+",") {
		t.Errorf("CSV has a row of the partial cell %s:\n%s", id, csv.String())
	}
}
