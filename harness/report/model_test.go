package report

import (
	"context"
	encodingcsv "encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

func cell(target string, cpus int, rps ...float64) *results.Cell {
	c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: cpus, Connections: 512, Status: results.OK}
	for _, x := range rps {
		c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x}})
	}
	c.Summary = analysis.Summarize(c.Trials, "median")
	return c
}

// Study 000's finding read off the table: passing from 4 cores to 1 costs
// one server 4.6× and the other 3.3×.
// With an A/A control whose pairs spread ±12%, b's 10% deficit is noise.
func TestRowsNoiseFloor(t *testing.T) {
	ctl := cell("a", 1, 100, 90, 112, 100, 101, 100)
	ctl.Control = true
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 100, 101, 102, 99, 100, 101),
		cell("b", 1, 90, 91, 92, 89, 90, 91),
		ctl,
	}}
	got := map[string]*analysis.Row{}
	for _, r := range analysis.Rows(run, "plaintext") {
		got[r.Target] = r
	}
	if got["b"] == nil || got["b"].Versus != "~" {
		t.Errorf("b: %+v, want ~ (within the noise floor)", got["b"])
	}
	if c := got["a (control)"]; c == nil || c.ID != "a/plaintext/1cpu/c512 (control)" {
		t.Errorf("control row %+v", c)
	}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "- Noise floor (A/A control: `a/plaintext/1cpu/c512` measured twice, 6 paired trials)") ||
		!strings.Contains(b.String(), "differences smaller than ±") {
		t.Errorf("README header lacks the noise floor:\n%s", b.String())
	}
	if strings.Contains(b.String(), "within one visit") {
		t.Errorf("an interleaved run's floor is said to be within one visit:\n%s", b.String())
	}
	// Run cell by cell, each side's trials share one visit: the floor
	// covers the noise within it, and says so.
	run.Matrix.Order = results.Sequential
	b.Reset()
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "are noise on this machine, within one visit: trials run cell by cell") {
		t.Errorf("a sequential run's noise floor does not say it is within one visit:\n%s", b.String())
	}
}

// rateCell is a fixed-rate cell of generator gen whose one trial answered
// rps a second for 10 s, at p99 p99 ms, using cpu cores.
func rateCell(gen string, rate int, rps, p99, cpu float64) *results.Cell {
	c := cell("a", 1, rps)
	c.Rate, c.Generator = rate, &results.Generator{Name: gen}
	tr := &c.Trials[0]
	tr.Requests, tr.Seconds, tr.TargetCPUCores = int64(rps*10), 10, cpu
	tr.LatencyMS = results.Latency{P50: p99 / 4, P90: p99 / 2, P99: p99, Max: 2 * p99}
	if gen == "openloop" {
		tr.OpenLoop = &results.Schedule{}
	}
	c.Summary = analysis.Summarize(c.Trials, "median")
	return c
}

// Cells at a fixed rate get a table of their own that leads with latency,
// says whether the rate was held and which loop measured it (a
// closed-loop generator's cells are marked: their latencies omit
// queueing), shows the target's cores at that load, and stay out of the
// open-loop table, its ratios and its charts. A target measured at
// several rates gets its knee and, with an objective, its capacity.
func TestFixedRateTable(t *testing.T) {
	missed := rateCell("openloop", 8000, 6000, 400, 1)
	missed.Status, missed.Reason = results.Failed, "could not sustain 8,000/s (held 6,000/s)"
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 1000),
		rateCell("bombardier", 500, 500, 0.5, 0.05),
		rateCell("openloop", 1000, 1000, 1, 0.1),
		rateCell("openloop", 2000, 2000, 1.5, 0.2),
		rateCell("openloop", 4000, 4000, 30, 0.5),
		missed,
	}, FinishedAt: &time.Time{}}
	run.Matrix.SLO = []results.Objective{{Percentile: "p99", Max: results.Duration(10 * time.Millisecond)}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"### plaintext at a fixed rate",
		"Every row: 1 core(s), 512 connections.",
		"| target | loop | rate | achieved RPS | p50 ms | p99 ms | p99.9 ms | max ms | errors | CPU cores |",
		"| a | closed, rate-limited | 500 | 500 | 0.125 | 0.500 | — | 1.00 | 0% | 0.0500 |",
		"| a (openloop) | open | 4,000 | 4,000 | 7.50 | 30.0 | — | 60.0 | 0% | 0.500 |",
		"| a (openloop) | open | 8,000 | 6,000, **not held** in 1 of 1 trials |",
		"**closed, rate-limited: latencies omit queueing.**",
		"### plaintext: capacity at p99 ≤ 10ms",
		"| a (openloop) | open | 1 | 512 | 1,000…8,000/s (4) | 2,000/s | 2,000/s | — | 1/1 1/1 0/1 0/1", // one trial: no interval
	} {
		if !strings.Contains(squash(md), squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, md)
		}
	}
	// One row in the main table, one in its details: no fixed-rate row.
	main := md[:strings.Index(md, "### plaintext at a fixed rate")]
	if strings.Count(main, "| a ") != 2 {
		t.Errorf("the open-loop table or its details hold fixed-rate rows:\n%s", main)
	}
	charts, err := Charts(run)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range charts {
		files = append(files, c.File)
	}
	if !slices.Contains(files, "latency-vs-rps-plaintext.svg") {
		t.Errorf("charts %v lack the latency curve", files)
	}
}

// A multi-service target's CPU and memory are shown by service.
func TestServiceTable(t *testing.T) {
	c := cell("fcgi", 1, 1000, 1100)
	c.Trials[0].Services = map[string]results.ServiceUsage{"nginx": {CPUCores: 0.3, MemPeakMiB: 5}, "backend": {CPUCores: 0.6, MemPeakMiB: 40}}
	c.Trials[1].Services = map[string]results.ServiceUsage{"nginx": {CPUCores: 0.5, MemPeakMiB: 6}, "backend": {CPUCores: 0.4, MemPeakMiB: 30}}
	run := &results.Run{Cells: []*results.Cell{c}, FinishedAt: &time.Time{}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### plaintext: CPU and memory by service", "| fcgi   | 1     | 512   | backend | 0.500              | 40.0     |", "| nginx   | 0.400              | 6.00     |"} {
		if !strings.Contains(squash(b.String()), squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, b.String())
		}
	}
}

// A database on a core of its own, on a machine whose generator shared
// the server's core: the README says where each service ran, that the
// database bounded the cell, with the figures, and how the cell was placed.
func TestDatabaseBoundAndPlacement(t *testing.T) {
	c := cell("dbt", 1, 9000, 9100)
	c.CPUSet, c.LoadgenCPUSet, c.Pinning = "0", "0", "together"
	c.ServiceCPUSets = map[string]string{"db": "1", "server": "0"}
	c.Placement = "this machine's 2 online cores cannot give the server 1, db 1 and the load generator 1 cores of their own, so the load generator shares the server's core 0 (as pinning together does), and db keeps core 1 to itself"
	for i := range c.Trials {
		c.Trials[i].TargetCPUCores, c.Trials[i].LoadgenCPUCores = 1.45, 0.3
		c.Trials[i].Services = map[string]results.ServiceUsage{"db": {CPUCores: 0.95, MemPeakMiB: 60}, "server": {CPUCores: 0.5, MemPeakMiB: 10}}
	}
	run := &results.Run{Cells: []*results.Cell{c}, FinishedAt: &time.Time{}}
	var b strings.Builder
	if err := markdown(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	md := squash(b.String())
	for _, want := range []string{
		"| database |",
		"`dbt/plaintext/1cpu/c512/together`: server and load generator at 80% of the server's 1 core(s) (server 0.50, generator 0.30 cores); database at 95% of its own 1 core(s) 1 (0.95 cores).",
		"placement: the machine had too few cores",
		"`dbt/plaintext/1cpu/c512/together`: " + c.Placement + ".",
		"| service | on cores |", "| db | 1 | 0.950 |", "| server | 0 | 0.500 |",
	} {
		if !strings.Contains(md, squash(want)) {
			t.Errorf("README lacks %q:\n%s", want, b.String())
		}
	}
}

// mainCell is the cell of the main table of scenario in md at the row of
// target and the column headed column; "" when there is none.
func mainCell(md, scenario, target, column string) string {
	in, col := false, -1
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			in = line == "## "+scenario
			continue
		case !in || !strings.HasPrefix(line, "|"):
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if col < 0 {
			col = slices.Index(cells, column)
			if col < 0 {
				return ""
			}
			continue
		}
		if len(cells) > 1 && cells[1] == target && col < len(cells) { // cells[0] is the rank
			return cells[col]
		}
	}
	return ""
}

// An A/A control is its twin measured again: no competitor. Though it ran
// faster than every cell here, it gets no vs-fastest figure, in the model,
// the README or the CSV; the fastest is picked without it; and it is listed
// after its twin, not first.
func TestControlNotRanked(t *testing.T) {
	ctl := cell("a", 1, 130, 131, 129, 130, 132, 128)
	ctl.Control = true
	run := &results.Run{Cells: []*results.Cell{
		cell("b", 1, 90, 91, 92, 89, 90, 91),
		ctl,
		cell("a", 1, 100, 101, 102, 99, 100, 101),
	}, FinishedAt: &time.Time{}}
	rows := analysis.Rows(run, "plaintext")
	var order []string
	got := map[string]*analysis.Row{}
	for _, r := range rows {
		order = append(order, r.Target)
		got[r.Target] = r
	}
	if want := []string{"a", "a (control)", "b"}; !slices.Equal(order, want) {
		t.Errorf("rows in order %q, want %q", order, want)
	}
	if c := got["a (control)"]; c.VsFastest != 0 || c.Versus != "" {
		t.Errorf("the control is compared: %v× %q", c.VsFastest, c.Versus)
	}
	if a := got["a"]; a.VsFastest != 1 || a.Versus != "" {
		t.Errorf("a is not the fastest: %v× %q", a.VsFastest, a.Versus)
	}
	if b := got["b"]; b.VsFastest != 90.5/100.5 {
		t.Errorf("b is %v× the fastest, want %v (a's, not the control's)", b.VsFastest, 90.5/100.5)
	}
	var md strings.Builder
	if err := markdown(&md, run, nil); err != nil {
		t.Fatal(err)
	}
	if got, a := mainCell(md.String(), "plaintext", "a (control)", "vs fastest"), mainCell(md.String(), "plaintext", "a", "vs fastest"); got != "—" || a != "1.00×" {
		t.Errorf("vs fastest: the control %q, a %q; want — and 1.00×:\n%s", got, a, md.String())
	}
	var csv strings.Builder
	if err := CSV(context.Background(), &csv, run); err != nil {
		t.Fatal(err)
	}
	records, err := encodingcsv.NewReader(strings.NewReader(csv.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	target, vs := slices.Index(records[0], "target"), slices.Index(records[0], "vs_fastest")
	for _, rec := range records[1:] {
		if rec[target] == "a (control)" && rec[vs] != "" {
			t.Errorf("the control's vs_fastest in the CSV is %q", rec[vs])
		}
	}
}

// An A/A control and its twin are one server: they get one bounded by,
// judged over both cells' trials together, where each cell's own trials
// would put it on its own side of a threshold.
func TestControlPairBound(t *testing.T) {
	mk := func(control bool, cpu float64, flagged bool) *results.Cell {
		c := cell("a", 1, 100, 101, 102)
		c.Control, c.LoadgenCPUSet = control, "1"
		for i := range c.Trials {
			c.Trials[i].TargetCPUCores, c.Trials[i].LoadgenCPUCores = cpu, 0.3
			c.Trials[i].GeneratorBound = flagged && i == 0
		}
		c.Summary = analysis.Summarize(c.Trials, "median")
		analysis.JudgeBound(c.Summary, 0, false)
		return c
	}
	for _, tc := range []struct {
		name      string
		twin, ctl *results.Cell
		want      string
	}{
		{"server cores (96%) and unclear (86%)", mk(false, 0.96, false), mk(true, 0.86, false), analysis.BoundServer},  // 91% together
		{"server cores (92%) and unclear (70%)", mk(false, 0.92, false), mk(true, 0.70, false), analysis.BoundUnclear}, // 81% together
		{"waiting (40%) and unclear (56%)", mk(false, 0.40, false), mk(true, 0.56, false), analysis.BoundWaiting},      // 48% together
		{"generator (one trial flagged) and server cores", mk(false, 0.95, true), mk(true, 0.95, false), analysis.BoundGenerator},
	} {
		run := &results.Run{Cells: []*results.Cell{tc.twin, tc.ctl}, FinishedAt: &time.Time{}}
		got := map[string]*analysis.Row{}
		for _, r := range analysis.Rows(run, "plaintext") {
			got[r.Target] = r
		}
		a, c := got["a"], got["a (control)"]
		if a.Bound != tc.want || c.Bound != tc.want {
			t.Errorf("%s: bounded by %q and, the control, %q; want %q for both", tc.name, a.Bound, c.Bound, tc.want)
		}
		if a.BoundWith != c.ID || c.BoundWith != a.ID {
			t.Errorf("%s: judged with %q and %q, want each other", tc.name, a.BoundWith, c.BoundWith)
		}
		var md strings.Builder
		if err := markdown(&md, run, nil); err != nil {
			t.Fatal(err)
		}
		la, lc := mainCell(md.String(), "plaintext", "a", "bounded by"), mainCell(md.String(), "plaintext", "a (control)", "bounded by")
		if la == "" || la != lc {
			t.Errorf("%s: the README says bounded by %q and, the control, %q", tc.name, la, lc)
		}
		ra, rc := mainCell(md.String(), "plaintext", "a", "RPS, median (min…max)"), mainCell(md.String(), "plaintext", "a (control)", "RPS, median (min…max)")
		if strings.Contains(ra, "†") != strings.Contains(rc, "†") {
			t.Errorf("%s: one of the pair is marked generator-bound: %q, %q", tc.name, ra, rc)
		}
	}
}

// Rows placed the same way share one placement sentence; a row placed
// otherwise gets its own.
func TestPlacementSaidOnce(t *testing.T) {
	mk := &marks{}
	mk.place("a/db/1cpu/c64/together", "the generator shares the server's core 0")
	mk.place("b/db/1cpu/c64/together", "the generator shares the server's core 0")
	mk.place("c/db/2cpu/c64/together", "db shares the server's cores")
	if len(mk.placed) != 2 || len(mk.placed[0].ids) != 2 || len(mk.placed[1].ids) != 1 {
		t.Errorf("placed %+v, want the two alike together and the third alone", mk.placed)
	}
}

// What the README says of a run that contradicts itself. A ceiling a cell
// beat (18,000 rps, then 47,340) is called wrong beside the ceilings, and
// the cell that only it called generator-bound reads unknown, with no †;
// the python server at 91% of it, its core at 97.8%, is bounded by its
// cores. An A/A floor of ±100% or more is said at the top, before any
// table, and not applied: b, at a fifth of a with the intervals apart,
// is no "~". The main table shows each cell's CPU per answer with its
// interval.
func TestContradictionsSaid(t *testing.T) {
	ceiling := results.Ceiling{CPUs: 1, CPUSet: "0", Connections: 64, RPS: 18000}
	mk := func(target string, control bool, cpu float64, rps ...float64) *results.Cell {
		c := &results.Cell{Target: target, Scenario: "plaintext", CPUs: 1, CPUSet: "0", Connections: 64, Status: results.OK, LoadgenCPUSet: "1", Control: control}
		for _, x := range rps {
			c.Trials = append(c.Trials, results.Trial{Result: results.Result{RPS: x, Requests: int64(x * 10), Seconds: 10}, TargetCPUCores: cpu, LoadgenCPUCores: 0.6})
		}
		c.Summary = analysis.Summarize(c.Trials, results.AggregateMedian)
		analysis.JudgeBound(c.Summary, ceiling.RPS, false)
		return c
	}
	run := &results.Run{FinishedAt: &time.Time{}, Ceilings: []results.Ceiling{ceiling}, Cells: []*results.Cell{
		mk("a", false, 0.7, 46200, 46900, 47100, 45900, 46300, 46600),
		mk("a", true, 0.7, 46200, 29500, 49300, 46000, 47000, 21000),
		mk("b", false, 0.5, 10100, 9710, 10400, 10000, 10200, 10300),
		mk("py", false, 0.978, 16400, 16300, 16500, 16400, 16450, 16350),
	}}
	md := string(markdownOf(t, run))
	head := md[:strings.Index(md, "\n## ")]
	for _, want := range []string{"**This run cannot separate differences smaller than ±", "**The ceiling on 1 core(s) c64 (18,000 rps) is wrong**: `a/plaintext/1cpu/c64`"} {
		if !strings.Contains(head, want) {
			t.Errorf("the README's top lacks %q:\n%s", want, head)
		}
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) > 8 && strings.HasPrefix(line, "| ") {
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if _, seen := rows[cells[1]]; !seen { // cells[0] is the rank
				rows[cells[1]] = cells
			}
		}
	}
	header := rows["target"]
	col := func(name string) int {
		return slices.IndexFunc(header, func(h string) bool { return strings.HasPrefix(h, name) })
	}
	rps, vs, bound, cpu := col("RPS"), col("vs fastest"), col("bounded by"), col("CPU µs/answer")
	if rps < 0 || vs < 0 || bound < 0 || cpu < 0 {
		t.Fatalf("main table header %q lacks RPS, vs fastest, bounded by or CPU µs/answer", header)
	}
	if r := rows["a"]; r[bound] != "**unknown**" || strings.Contains(r[rps], "†") {
		t.Errorf("a, † only by a beaten ceiling: %q", r)
	}
	if r := rows["py"]; r[bound] != "server cores" || strings.Contains(r[rps], "†") {
		t.Errorf("py, its core saturated: %q", r)
	}
	if r := rows["b"]; strings.Contains(r[vs], "~") {
		t.Errorf("b, intervals apart, read as noise under a floor too wide to apply: %q", r)
	}
	// 0.5 cores for 10 s over 97,100…104,000 answers: 48.1…51.5 µs each.
	if r := rows["b"]; r[cpu] != "49.3 (48.1…51.5)" {
		t.Errorf("b's CPU per answer: %q, want 49.3 µs with its interval", r[cpu])
	}
}

// The main table leads with each row's rank interval, and the order line
// under it claims only what the trials show: a before b and c, which
// tie. Rows of another generator at the same settings alternate with
// them in the table but are ranked, and ordered, apart.
func TestRanksRendered(t *testing.T) {
	ctl := cell("a", 1, 100, 101, 101, 99, 100, 102)
	ctl.Control = true
	wrk := func(c *results.Cell) *results.Cell {
		c.Generator = &results.Generator{Name: "wrk"}
		return c
	}
	run := &results.Run{Cells: []*results.Cell{
		cell("a", 1, 100, 101, 102, 99, 100, 101),
		ctl,
		cell("b", 1, 90, 91, 92, 89, 90, 91),
		cell("c", 1, 89, 92, 91, 90, 90, 92),
		wrk(cell("a", 1, 95, 96, 97, 94, 95, 96)),
		wrk(cell("b", 1, 85, 86, 87, 84, 85, 86)),
	}, FinishedAt: &time.Time{}}
	var md strings.Builder
	if err := markdown(&md, run, nil); err != nil {
		t.Fatal(err)
	}
	for target, want := range map[string]string{"a": "1", "a (control)": "—", "b": "2–3", "c": "2–3", "a (wrk)": "1", "b (wrk)": "2"} {
		if got := mainCell(md.String(), "plaintext", target, "rank"); got != want {
			t.Errorf("%s: rank %q, want %q:\n%s", target, got, want, md.String())
		}
	}
	for _, want := range []string{"Order shown: a > b ≈ c.", "Order shown: a (wrk) > b (wrk)."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the README lacks %q:\n%s", want, md.String())
		}
	}
}
