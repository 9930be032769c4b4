// Package report renders a run's results.json as the Markdown, CSV, JSON
// and SVG charts a reviewer reads, and the index of committed result sets.
// It reads nothing but the results.Run it is given and links no Docker
// code, so every report can be regenerated anywhere, and the same input
// gives the same bytes.
package report

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/internal/mdtable"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// WriteDir writes README.md and charts/*.svg into dir, from run alone,
// within the caps of Render, and removes the charts/*.svg it did not draw
// (an earlier run's); it returns what the caps left out (Rendered.Left),
// for the command to warn with. Cancelling ctx stops the render, before
// anything is written: it returns ctx's error and dir is as it was.
func WriteDir(ctx context.Context, dir string, run *results.Run) ([]string, error) {
	r, err := Render(ctx, run)
	if err != nil {
		return nil, err
	}
	if len(r.Charts) > 0 {
		if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
			return nil, err
		}
	}
	drawn := map[string]bool{}
	for _, c := range r.Charts {
		drawn[c.File] = true
		if err := results.WriteFileAtomic(filepath.Join(dir, "charts", c.File), c.SVG); err != nil {
			return nil, err
		}
	}
	// charts/ holds what this run draws and nothing else: a chart of an
	// earlier run in the folder (run --force, or a cell no longer there)
	// would be read as this run's.
	// A linked charts/ (or a link in it) would make that removal reach
	// files elsewhere: refused.
	if err := safefile.NoLinks(dir, "charts"); err != nil {
		return nil, err
	}
	stale, _ := filepath.Glob(filepath.Join(dir, "charts", "*.svg"))
	for _, f := range stale {
		if !drawn[filepath.Base(f)] {
			if err := os.Remove(f); err != nil {
				return nil, err
			}
		}
	}
	return r.Left, results.WriteFileAtomic(filepath.Join(dir, "README.md"), r.README)
}

// markdown renders a run's README.md: its header, then the tables of
// each scenario with links to its charts, then the cells that did not
// finish ok.
func markdown(w io.Writer, run *results.Run, charts []Chart) error {
	b := &strings.Builder{}
	preamble(b, run, charts)
	matrixLines(b, run.Matrix)
	b.WriteString("\n")
	if err := baseImages(b, run); err != nil {
		return err
	}
	if err := generatorTable(b, run); err != nil {
		return err
	}
	for _, sc := range scenarios(run) {
		if err := scenarioTable(b, run, sc); err != nil {
			return err
		}
		chartLinks(b, sc, charts)
	}
	for _, rel := range run.Matrix.RelativeTo {
		relativeTable(b, run, rel)
	}
	revisionsSection(b, run)
	notOK(b, run)
	_, err := io.WriteString(w, b.String())
	return err
}

// preamble writes the README's title, its headline chart, how the run
// ended, its warnings and where it ran: machine, harness, ceilings and
// noise floors.
func preamble(b *strings.Builder, run *results.Run, charts []Chart) {
	env := run.Environment
	fmt.Fprintf(b, "# Results: %s\n\n", mdtext.Text(env.Label))
	headline(b, charts)
	switch {
	case run.Stopped != "":
		fmt.Fprintf(b, "**This run stopped early: %s.** Only the cells below were measured; `bin/harness run --resume DIR` continues it.\n\n", mdtext.Text(run.Stopped))
	case run.Interrupted:
		b.WriteString("**This run was interrupted; only the cells below were measured.** `bin/harness run --resume DIR` continues it.\n\n")
	case run.FinishedAt == nil:
		b.WriteString("**Incomplete run: it never finished (killed, or still running); only the cells below were measured.** `bin/harness run --resume DIR` continues it.\n\n")
	}
	if n := countPartial(run); n > 0 {
		fmt.Fprintf(b, "**%d cell(s) measured in part**, with fewer trials than asked: listed under Partial cells, in no table.\n\n", n)
	}
	if n := len(run.Environment.Resumed); n > 0 {
		fmt.Fprintf(b, "**Resumed %d time(s)** (last at %s): the trials of one cell may come from different sittings.\n\n", n, run.Environment.Resumed[n-1].UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	floorTooWide(b, run)
	for _, w := range run.Warnings {
		fmt.Fprintf(b, "- ⚠ %s\n", mdtext.Text(w))
	}
	if len(run.Warnings) > 0 {
		b.WriteString("\n")
	}
	if len(env.Machines) > 0 {
		machines(b, env)
	} else {
		fmt.Fprintf(b, "- Machine: %s, %d online CPUs, kernel %s\n", mdtext.Text(env.CPUModel), env.OnlineCPUs, mdtext.Text(env.Kernel))
		fmt.Fprintf(b, "- Docker: engine %s (API %s, %s), network mode %s\n", mdtext.Text(env.DockerVersion), mdtext.Text(env.DockerAPI), mdtext.Text(env.StorageDriver), mdtext.Code(string(env.NetworkMode)))
		if env.NetworkMode == results.NetworkHost {
			b.WriteString("- ⚠ Host network mode: each target listened on every interface of this machine while it ran, and its code could reach whatever the machine can\n")
		}
	}
	fmt.Fprintf(b, "- Harness: %s, load generator %s\n", mdtext.Text(env.HarnessVersion), mdtext.Text(env.LoadGenerator))
	fmt.Fprintf(b, "- Started: %s\n", env.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	if run.Matrix.NoCeiling {
		b.WriteString("- Load generator ceiling: **not measured** (`--no-ceiling`): † rests on the load generator's CPU alone.\n")
	}
	if line := ceilings(run.Ceilings); line != "" {
		b.WriteString(line)
	}
	beatenCeilings(b, run)
	noiseFloors(b, run)
}

// floorTooWide says, at the top, that a run whose A/A control moved by
// MaxNoiseFloor or more cannot separate differences smaller than that,
// and that its floor is not applied.
func floorTooWide(b *strings.Builder, run *results.Run) {
	var widest analysis.NoiseFloor
	for _, nf := range analysis.NoiseFloors(run) {
		if nf.Floor > widest.Floor {
			widest = nf
		}
	}
	if widest.Floor < analysis.MaxNoiseFloor {
		return
	}
	fmt.Fprintf(b, "**This run cannot separate differences smaller than ±%.0f%%**: its A/A control %s moved that much against itself, "+
		"so the machine was too busy (or too unsteady) for its comparisons to mean much. That floor is not applied: "+
		"a difference is marked only where the cells' own intervals do not overlap, and even then it is a hint to measure again on a quieter machine.\n\n",
		100*widest.Floor, mdtext.Code(widest.Cell))
}

// beatenCeilings writes a header line per measured ceiling a cell beat:
// the ceiling is wrong, and what rested on it is unknown.
func beatenCeilings(b *strings.Builder, run *results.Run) {
	for _, bc := range analysis.BeatenCeilings(run) {
		ce := bc.Ceiling
		fmt.Fprintf(b, "- ⚠ **The ceiling on %d core(s) c%s (%s rps) is wrong**: %s drew %s rps from a server on the same cores and connections, %s of it. "+
			"It was measured low (a busy machine, most likely), so nothing is judged by it: no cell or rate is marked † by it, and a cell that it alone called generator-bound reads **unknown** unless its CPU figures place it. "+
			"A run on a quieter machine measures a ceiling to judge by.\n",
			ce.Cores(), connsText(ce.Connections, ce.Close), numfmt.Sig(ce.RPS), mdtext.Code(bc.Cell), numfmt.Sig(bc.RPS), numfmt.Percent(bc.Share))
	}
}

// noiseFloors writes a header line per A/A control: what it says of the
// machine's noise.
func noiseFloors(b *strings.Builder, run *results.Run) {
	for _, nf := range analysis.NoiseFloors(run) {
		interval := "95% CI"
		if !nf.HasCI {
			interval = "min…max, fewer than 6 pairs"
		}
		apart := ""
		if nf.Apart > 0 {
			apart = ", each pair's starts a median " + time.Duration(nf.Apart*float64(time.Second)).Round(time.Second).String() + " apart"
		}
		within := ""
		if run.Matrix.Order == results.Sequential {
			// Each side's trials share one visit (one set of containers):
			// the pairs differ by the noise within a visit, and by how two
			// visits differ only once, which no interval can show.
			within = ", within one visit: trials run cell by cell, so the pairs compare one set of containers with one other, and how much visits differ is a single draw"
		}
		fmt.Fprintf(b, "- Noise floor (A/A control: %s measured twice, %d paired trials%s): %+.1f%% (%s %+.1f%%…%+.1f%%); differences smaller than ±%.1f%% are noise on this machine%s\n",
			mdtext.Code(nf.Cell), nf.N, apart, 100*(nf.Ratio-1), interval, 100*(nf.Lo-1), 100*(nf.Hi-1), 100*nf.Floor, within)
	}
}

// matrixLines writes the header lines of how the matrix was run: each
// trial, the trial count, where the generator ran, and the order.
func matrixLines(b *strings.Builder, m results.Settings) {
	profile := m.Profile
	if profile == "" {
		profile = "(none)"
	}
	agg := m.Load.Aggregate
	if agg == "" {
		agg = results.AggregateMedian
	}
	where := fmt.Sprintf("load generator on %d core(s)", m.Load.LoadgenCPUs)
	switch {
	case slices.Equal(m.Pinning, []string{cellid.PinNone}):
		where = "load generator unpinned, on every core"
	case slices.Contains(m.Pinning, cellid.PinNone):
		where += " (unpinned cells: on every core)"
	}
	fmt.Fprintf(b, "- Matrix: %s, profile %s; each trial %s, warm-up %s, %d trial(s), %s shown; %s\n",
		mdtext.Code(m.File), mdtext.Code(profile), m.PerTrial(), m.Load.Warmup, m.Load.Trials, agg, where)
	if len(m.Set) > 0 {
		flags := make([]string, len(m.Set))
		for i, kv := range m.Set {
			flags[i] = mdtext.Code("--set " + kv)
		}
		fmt.Fprintf(b, "- Settings given on the command line, over the profile: %s\n", strings.Join(flags, " "))
	}
	if m.Only != "" {
		fmt.Fprintf(b, "- Cells selected with %s\n", mdtext.Code("--only "+m.Only))
	}
	switch m.Order {
	case results.Interleaved:
		again, blocked := "", ""
		if m.Blocked {
			blocked = "; cells compared trial by trial (A/A twins, ratio baselines) back to back within each round"
		} else {
			again = " --unblocked" // a run from before blocking, or one that asked for none
		}
		fmt.Fprintf(b, "- Trials interleaved across cells, round by round, in an order shuffled with seed %d (`--seed %d%s` repeats it)%s\n", m.Seed, m.Seed, again, blocked)
	case results.Sequential:
		b.WriteString("- Trials run cell by cell\n")
	case results.Duet:
		fmt.Fprintf(b, "- Trials in rounds, in an order shuffled with seed %d (`--seed %d` repeats it). Cells of `schedule=duet` ran in duets: each one compared trial by trial (an A/A twin, a later revision) ran at the same time as its baseline, each side with its own load generator on cores of its own, the two swapping cores every round, and its ratio pairs each of its trials with the baseline's reading beside it; any other cell ran back to back with its baseline\n", m.Seed, m.Seed)
	}
}

// headline writes the run's one picture, the figure a reviewer would
// quote: its first scenario's requests/s by target, or, in a run with
// none (fixed rates only), its first chart. Nothing without charts.
func headline(b *strings.Builder, charts []Chart) {
	if len(charts) == 0 {
		return
	}
	pick := charts[0]
	for _, c := range charts {
		if strings.HasPrefix(c.File, "rps-") {
			pick = c
			break
		}
	}
	fmt.Fprintf(b, "![%s](charts/%s)\n\n", mdtext.Text(strings.NewReplacer("[", "(", "]", ")").Replace(pick.Title)), pick.File)
}

// chartLinks writes the line linking the scenario's charts, if it has any.
func chartLinks(b *strings.Builder, scenario string, charts []Chart) {
	var links []string
	for _, c := range charts {
		if strings.HasSuffix(c.File, "-"+unsafeName.ReplaceAllString(scenario, "_")+".svg") {
			links = append(links, fmt.Sprintf("[%s](charts/%s)", mdtext.Text(strings.NewReplacer("[", "(", "]", ")").Replace(c.Title)), c.File))
		}
	}
	if len(links) > 0 {
		fmt.Fprintf(b, "Charts: %s\n\n", strings.Join(links, " · "))
	}
}

// keyHeader is the first columns of a table of rows: the target, and the
// params where the scenario has them.
func keyHeader(hasParams bool) []any {
	if hasParams {
		return []any{"target", "params"}
	}
	return []any{"target"}
}

// keyCells is a row's cells under keyHeader.
func keyCells(target, params string, hasParams bool) []any {
	if hasParams {
		return []any{mdtext.Text(target), mdtext.Text(params)}
	}
	return []any{mdtext.Text(target)}
}

// newTable is a Markdown table whose numeric columns are right-aligned.
func newTable(w io.Writer) *mdtable.Table { return mdtable.New(w) }

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
			used, how = "—", "unavailable: "+results.ShortCause(bi.Error)
		case bi.StandIn:
			how = "local stand-in: " + bi.Note
		case bi.Pulled:
			how = "official image, pulled by this run"
		}
		if err := t.Append(mdtext.Text(k), mdtext.Code(bi.Official), mdtext.Code(used), mdtext.Text(how)); err != nil {
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
func scenarios(run *results.Run) []string { return analysis.Scenarios(run) }

// group is the cells that compete with each other: same scenario params,
// cores and connections.
type group struct {
	params      string
	cpus, conns int
	close       bool
	rate        int
}

// connsText is the connections column: "64", or "20, close" without
// keep-alive.
func connsText(conns int, close bool) string {
	if close {
		return strconv.Itoa(conns) + ", close"
	}
	return strconv.Itoa(conns)
}

// subTable starts a scenario's sub-table ("### scenario: title") over the
// rows keep picks, headed by the target (and params) columns then cols; it
// writes nothing and returns a nil table when keep picks no row.
func subTable(b *strings.Builder, scenario, title string, rows []*analysis.Row, hasParams bool, keep func(*analysis.Row) bool, cols ...any) (*mdtable.Table, []*analysis.Row) {
	var picked []*analysis.Row
	for _, r := range rows {
		if keep(r) {
			picked = append(picked, r)
		}
	}
	if len(picked) == 0 {
		return nil, nil
	}
	fmt.Fprintf(b, "### %s: %s\n\n", mdtext.Text(scenario), title)
	t := newTable(b)
	t.Header(append(keyHeader(hasParams), cols...)...)
	return t, picked
}

// footprintTable shows what each measured cell's target costs: how long it
// takes to start, its image, its CPU per answer and its memory, steady
// and peak; nothing for runs that predate these figures.
func footprintTable(b *strings.Builder, scenario string, rows []*analysis.Row, hasParams bool) error {
	t, with := subTable(b, scenario, "footprint", rows, hasParams,
		func(r *analysis.Row) bool { return measuredFootprint(r.Footprint) },
		"cores", "conns", "startup s", "image MiB", "CPU µs per answer", "steady MiB", "peak MiB")
	if t == nil {
		return nil
	}
	for _, r := range with {
		row := append(keyCells(r.Target, r.Params, hasParams), strconv.Itoa(r.Cores), connsText(r.Connections, r.Close))
		if err := t.Append(append(row, footprintCells(r.Footprint)...)...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\nstartup: from starting the target's containers to its first verified answer, median over the cell's visits. " +
		"image: each service's image, its layers included (base layers shared with other images counted in each). " +
		"CPU µs per answer: the target's CPU time over its good answers, median over trials. " +
		"steady: the median of the target's memory samples in the last trial; peak: the largest of any trial.\n\n")
	return nil
}

// measuredFootprint says whether f holds a figure of the footprint table:
// results that predate them have none.
func measuredFootprint(f analysis.Footprint) bool {
	return f.StartupS > 0 || f.CPUPerAnswer > 0 || f.SteadyMiB > 0 || len(f.ImageMiB) > 0
}

// footprintCells are f's cells of the footprint table: startup, each
// service's image (named when there are several), CPU per answer, steady
// and peak memory.
func footprintCells(f analysis.Footprint) []any {
	var images []string
	for _, svc := range slices.Sorted(maps.Keys(f.ImageMiB)) {
		text := numfmt.Sig(f.ImageMiB[svc])
		if len(f.ImageMiB) > 1 {
			text = mdtext.Text(svc) + " " + text
		}
		images = append(images, text)
	}
	image := "—"
	if len(images) > 0 {
		image = strings.Join(images, ", ")
	}
	return []any{meanText(f.StartupS), image, meanText(f.CPUPerAnswer), meanText(f.SteadyMiB), numfmt.Sig(f.PeakMiB)}
}

// protocolTable says, for each cell over another protocol than cleartext
// HTTP/1.1, what the probe and the target agreed before load.
func protocolTable(b *strings.Builder, scenario string, rows []*analysis.Row, hasParams bool) error {
	t, with := subTable(b, scenario, "protocols negotiated", rows, hasParams,
		func(r *analysis.Row) bool { return r.Protocol != "" && r.Negotiated != nil },
		"cores", "conns", "protocol", "HTTP", "TLS", "cipher suite", "ALPN")
	if t == nil {
		return nil
	}
	dash := func(s string) string {
		if s == "" {
			return "—"
		}
		return mdtext.Text(s)
	}
	for _, r := range with {
		n := r.Negotiated
		row := append(keyCells(r.Target, r.Params, hasParams), strconv.Itoa(r.Cores), connsText(r.Connections, r.Close),
			r.Protocol, dash(n.HTTP), dash(n.TLS), dash(n.Cipher), dash(n.ALPN))
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\nWhat the probe agreed with the target before load, from the load generator's container, the certificate verified " +
		"against the run's throwaway authority. wrk and h2load do not verify certificates themselves; bombardier and openloop do.\n\n")
	return nil
}

// serviceTable splits the CPU and memory of multi-service targets by
// service: nginx apart from its FastCGI pool, a client apart from its
// upstream.
func serviceTable(b *strings.Builder, scenario string, rows []*analysis.Row, hasParams bool) error {
	// Results from before each service's cores were recorded (every
	// service then ran on the target's) keep their table as it was.
	withSets := slices.ContainsFunc(rows, func(r *analysis.Row) bool { return len(r.ServiceCPUSets) > 0 })
	cols := []any{"cores", "conns", "service", "CPU cores (median)", "peak MiB"}
	if withSets {
		cols = slices.Insert(cols, 3, any("on cores"))
	}
	t, split := subTable(b, scenario, "CPU and memory by service", rows, hasParams,
		func(r *analysis.Row) bool { return len(r.Services) > 0 }, cols...)
	if t == nil {
		return nil
	}
	for _, r := range split {
		for _, name := range slices.Sorted(maps.Keys(r.Services)) {
			row := keyCells(r.Target, r.Params, hasParams)
			u := r.Services[name]
			row = append(row, strconv.Itoa(r.Cores), connsText(r.Connections, r.Close), name)
			if withSets {
				row = append(row, mdtext.Text(cmp.Or(r.ServiceCPUSets[name], "—")))
			}
			row = append(row, numfmt.Sig(u.CPUCores), numfmt.Sig(u.MemPeakMiB))
			if err := t.Append(row...); err != nil {
				return err
			}
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if withSets {
		b.WriteString("\nA service's CPU and memory are summed over its replicas. on cores: the cores it ran on, the target's " +
			"unless the matrix gave it cores of its own (cpus:).\n\n")
		return nil
	}
	b.WriteString("\nA service's CPU and memory are summed over its replicas; every service of a target shares the target's cores.\n\n")
	return nil
}

// fixedRateTable writes the scenario's cells measured at a fixed rate,
// latency first: at a fixed rate the RPS is the rate asked, and what
// differs is how long the answers take and what the server spent on them
// (its cores at equal load). A cell that could not sustain its rate is
// shown too, marked, since what it did is the finding.
func fixedRateTable(b *strings.Builder, run *results.Run, scenario string) error {
	fixed := analysis.RateRows(run, scenario)
	if len(fixed) == 0 {
		return nil
	}
	fmt.Fprintf(b, "### %s at a fixed rate\n\n", mdtext.Text(scenario))
	pl := ratePlaceOf(fixed)
	if line := pl.shared(); line != "" {
		b.WriteString(line + "\n\n")
	}
	t := newTable(b)
	t.Header(append(pl.header(), "rate", "achieved RPS", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "errors", "CPU cores")...)
	var unsustained, closed, open bool
	for _, r := range fixed {
		achieved := numfmt.Sig(r.RPSStats.Median)
		if r.Unsustained > 0 {
			achieved, unsustained = fmt.Sprintf("%s, **not held** in %d of %d trials", achieved, r.Unsustained, r.RPSStats.N), true
		}
		open, closed = open || r.OpenLoop, closed || !r.OpenLoop
		l := results.Latency{P50: r.P50.Median, P90: r.P90, P99: r.P99.Median, Max: r.MaxMS}
		if r.Merged != nil {
			l = *r.Merged
		}
		row := append(pl.loopCells(loopText(r.OpenLoop), r.Target, r.Params, r.Cores, r.Connections, r.Close), numfmt.Count(int64(r.Rate)), achieved,
			meanText(l.P50), meanText(l.P99), meanText(l.P999), numfmt.Sig(l.Max), numfmt.Percent(r.ErrorRate), cpuText(r.TargetCPU))
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\n")
	if open {
		b.WriteString("open: the generator keeps a schedule of intended send times and times each request from its intended time, " +
			"so a stall delays, and is charged to, every request due during it; its percentiles are those of every request of the trials together (their HDR histograms merged). ")
	}
	if closed {
		b.WriteString("**closed, rate-limited: latencies omit queueing.** The generator times each request from when it sends it, " +
			"so a request held back behind a slow one is not charged that wait (coordinated omission): these latencies are a lower bound; " +
			"their percentiles are medians over the trials. ")
	}
	b.WriteString("CPU cores: the target's, median over the trials, at the same offered load for every target. The other percentiles (p75, p90, p95, p99.99) are each trial's in results.json. ")
	if unsustained {
		fmt.Fprintf(b, "**not held**: those trials achieved less than %.0f%% of the rate asked, which fails the cell: its latencies are not at that rate.", 100*analysis.Sustained)
	}
	b.WriteString("\n\n")
	return nil
}

// capacityTable writes, for each target measured at several fixed rates,
// its knee and, with a latency objective, its capacity: the highest rate
// it sustained within the objective, median over trials with its interval.
func capacityTable(b *strings.Builder, run *results.Run, scenario string, hasParams bool) error {
	curves := analysis.Curves(run, scenario)
	if len(curves) == 0 {
		return nil
	}
	slo := run.Matrix.SLO
	var bounds []string
	for _, o := range slo {
		bounds = append(bounds, fmt.Sprintf("%s ≤ %s", o.Percentile, time.Duration(o.Max)))
	}
	if len(slo) > 0 {
		fmt.Fprintf(b, "### %s: capacity at %s\n\n", mdtext.Text(scenario), mdtext.Text(strings.Join(bounds, ", ")))
	} else {
		fmt.Fprintf(b, "### %s: latency against rate\n\n", mdtext.Text(scenario))
	}
	sp := spreadOf(false)
	for _, c := range curves {
		if c.Capacity != nil {
			sp.add(*c.Capacity)
		}
	}
	t := newTable(b)
	header := keyHeader(hasParams)
	header = append(header, "loop", "cores", "conns", "rates tried", "knee")
	if len(slo) > 0 {
		header = append(header, "capacity (median)", cmp.Or(sp.name(), "interval"), "trials within at each rate")
	}
	t.Header(header...)
	var notes []string
	for _, c := range curves {
		if err := t.Append(capacityRow(c, sp, hasParams)...); err != nil {
			return err
		}
		if c.Capacity != nil && c.CapacityUnsure != "" {
			notes = append(notes, mdtext.Text(c.Target)+": "+mdtext.Text(c.CapacityUnsure)+".")
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	capacityNotes(b, curves, len(slo) > 0, notes)
	return nil
}

// capacityRow is c's line of the capacity table; sp heads its interval.
func capacityRow(c *analysis.Curve, sp spread, hasParams bool) []any {
	row := keyCells(c.Target, c.Params, hasParams)
	loop := "closed, rate-limited"
	if c.OpenLoop {
		loop = "open"
	}
	knee := "none (latency within 2×)"
	switch {
	case c.Knee > 0:
		knee = numfmt.Count(int64(c.Knee)) + "/s"
	case c.Points[0].Failed:
		knee = "below " + numfmt.Count(int64(c.Points[0].Rate)) + "/s (it failed)"
	}
	tried := numfmt.Count(int64(c.Points[0].Rate)) + "…" + numfmt.Count(int64(c.Points[len(c.Points)-1].Rate)) + "/s (" + strconv.Itoa(len(c.Points)) + ")"
	row = append(row, loop, strconv.Itoa(c.Cores), connsText(c.Connections, c.Close), tried, knee)
	cp := c.Capacity
	if cp == nil {
		return row
	}
	capText := "**none**"
	if cp.Median > 0 {
		capText = numfmt.Count(int64(cp.Median)) + "/s"
	}
	var met []string
	for _, p := range c.Points {
		m := fmt.Sprintf("%d/%d", p.Met, p.Trials)
		if p.Failed && p.Trials == 0 {
			m = "failed"
		}
		if p.Bound {
			m += " †"
		}
		met = append(met, m)
	}
	count := func(x float64) string { return numfmt.Count(int64(x)) }
	return append(row, capText, sp.text(*cp, count), strings.Join(met, " "))
}

// capacityNotes explains the capacity table under it; withSLO says it has
// the capacity columns, notes are its rows' own.
func capacityNotes(b *strings.Builder, curves []*analysis.Curve, withSLO bool, notes []string) {
	b.WriteString("\nknee: the last rate before the latency turns up (Kneedle on log rate and log " + curves[0].Percentile +
		"; none when it stays within 2× over the rates tried and none failed; when one failed and the latency shows no turn, the last rate before the first that failed). ")
	for _, c := range curves {
		if c.Ceiling > 0 {
			fmt.Fprintf(b, "† a rate at or above %.0f%% of the load generator's measured ceiling on these cores and connections (%s rps): what it shows may be the generator's. ",
				100*analysis.CeilingBound, numfmt.Sig(c.Ceiling))
			break
		}
	}
	if withSLO {
		b.WriteString("capacity: for each trial, the highest offered rate whose trial sustained it in good answers (≥ 99%) with every percentile of the objective within its bound; " +
			"median over the trials (0 when no rate met it). A percentile the generator does not report never meets an objective.")
	}
	if len(notes) > 0 {
		b.WriteString("  \n" + strings.Join(notes, "  \n"))
	}
	b.WriteString("\n\n")
}

// crosscheckTable shows, for a run with a cross-check, each cell as the
// cross-check's generator measured it beside another generator's figure,
// whether they agree, and the targets whose order flips between them.
func crosscheckTable(b *strings.Builder, run *results.Run, scenario string, hasParams bool) error {
	for _, cc := range analysis.Crosschecks(run, scenario) {
		fmt.Fprintf(b, "**Cross-check: %s against %s.** ", mdtext.Text(cc.Cross), mdtext.Text(cc.Base))
		switch n := len(cc.Pairs); {
		case n == 0:
			b.WriteString("No cell was measured by both.\n\n")
			continue
		case cc.Differ == 0 && cc.Unsure == 0:
			fmt.Fprintf(b, "They agree on all %d cell(s): their intervals overlap, or the difference is within the noise floor.", n)
		default:
			fmt.Fprintf(b, "They agree on %d of %d cell(s), differ on %d", cc.Agree, n, cc.Differ)
			if cc.Unsure > 0 {
				fmt.Fprintf(b, ", and %d cannot tell (one trial)", cc.Unsure)
			}
			b.WriteString(".")
		}
		if len(cc.Flips) == 0 {
			b.WriteString(" No two targets change order.\n\n")
		} else {
			var flips []string
			for _, f := range cc.Flips {
				flips = append(flips, mdtext.Code(f[0])+" and "+mdtext.Code(f[1]))
			}
			fmt.Fprintf(b, " **Order flips between the generators:** %s.\n\n", strings.Join(flips, "; "))
		}
		t := newTable(b)
		header := keyHeader(hasParams)
		t.Header(append(header, "cores", "conns", cc.Base+" RPS", cc.Cross+" RPS", cc.Cross+" ÷ "+cc.Base, "verdict")...)
		for _, p := range cc.Pairs {
			row := keyCells(p.Base.Base, p.Base.Params, hasParams)
			row = append(row, strconv.Itoa(p.Base.Cores), connsText(p.Base.Connections, p.Base.Close), numfmt.Sig(p.Base.RPS), numfmt.Sig(p.Cross.RPS),
				numfmt.Sig(p.Ratio)+"×", p.Verdict)
			if err := t.Append(row...); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	return nil
}

// generatorTable shows, in a run measured with another load generator
// than bombardier or with several, what each drew from a core of its own:
// good answers per second of its CPU over its trials, and its ceilings.
func generatorTable(b *strings.Builder, run *results.Run) error {
	gens := analysis.Generators(run)
	if len(gens) == 0 || len(gens) == 1 && gens[0].Name == cellid.DefaultGenerator {
		return nil // bombardier alone: its line in the header says it all
	}
	b.WriteString("## Load generators\n\n")
	t := newTable(b)
	sp := spreadOf(false)
	for _, g := range gens {
		sp.add(g.PerCPU)
	}
	t.Header("generator", "version", "ok cells", "requests per generator CPU-second (median of its bound trials)", cmp.Or(sp.name(), "interval"), "ceilings (rps; per CPU-second)")
	for _, g := range gens {
		per, ci := "—", sp.text(g.PerCPU, numfmt.Sig)
		if g.PerCPU.N > 0 {
			per = numfmt.Sig(g.PerCPU.Median)
		}
		var ceils []string
		for _, c := range g.Ceilings {
			where := fmt.Sprintf("%d core(s) c%s", c.Cores(), connsText(c.Connections, c.Close))
			if c.Protocol != "" {
				where = c.Protocol + " " + where
			}
			if c.Error != "" {
				ceils = append(ceils, where+": not measured")
				continue
			}
			ceils = append(ceils, fmt.Sprintf("%s: %s; %s", where, numfmt.Sig(c.RPS), meanText(c.RPSPerCPU)))
		}
		if err := t.Append(mdtext.Text(g.Name), mdtext.Text(g.Version), strconv.Itoa(g.Cells), per, ci, mdtext.Text(strings.Join(ceils, ", "))); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(b, "\nEach generator ran on the same cores, against the same targets, in the same run. Requests per generator CPU-second is how much load a tool draws from a core, over the trials in which it used ≥ %.0f%% of its cores (elsewhere a slower server left it idle): at equal server speed, the tool that draws more is bounded later by its own core. A tool's figures are its own: bombardier retries a request that got no answer, wrk does not; h2load reports no latency percentiles, ab whole milliseconds (see the harness README, *Load generators*).\n\n", 100*analysis.GeneratorBoundShare)
	return nil
}

// cpuText is a target's CPU in cores, or "—" where no trial was long
// enough for two stats samples (a server that answered used some).
func cpuText(cores float64) string {
	if cores == 0 {
		return "—"
	}
	return numfmt.Sig(cores)
}

// meanText is a latency figure, or "—" where the load generator gave none.
func meanText(ms float64) string {
	if ms == 0 {
		return "—"
	}
	return numfmt.Sig(ms)
}

// ceilings is the header line of the load generator's measured ceilings.
func ceilings(cs []results.Ceiling) string {
	var parts []string
	for _, c := range cs {
		if c.Error != "" {
			parts = append(parts, fmt.Sprintf("%d core(s) c%s: not measured (%s)", c.Cores(), connsText(c.Connections, c.Close), mdtext.Text(c.Error)))
			continue
		}
		part := fmt.Sprintf("%d core(s) c%s: %s rps", c.Cores(), connsText(c.Connections, c.Close), numfmt.Sig(c.RPS))
		switch {
		case c.AtLeast > 0:
			part = fmt.Sprintf("%d core(s) c%s: above %s rps (it sustained the run's highest rate)", c.Cores(), connsText(c.Connections, c.Close), numfmt.Count(int64(c.AtLeast)))
		case c.Rate > 0:
			part += fmt.Sprintf(" (asked %s/s, the run's highest rate)", numfmt.Count(int64(c.Rate)))
		}
		if c.RPSPerCPU > 0 {
			part += fmt.Sprintf(" (%s per generator CPU-second)", numfmt.Sig(c.RPSPerCPU))
		}
		if g := c.GeneratorName(); c.Generator != "" && g != cellid.DefaultGenerator {
			part = mdtext.Text(g) + " " + part
		}
		if c.Protocol != "" {
			part = c.Protocol + " " + part
		}
		switch {
		case c.Loadgens == 1:
			part = "1 generator engine, " + part
		case c.Loadgens > 1:
			part = fmt.Sprintf("%d generator engines, ", c.Loadgens) + part
		}
		switch c.Pinning {
		case cellid.PinTogether:
			part = "together (generator on the same cores) " + part
		case cellid.PinNone:
			part = "unpinned " + part
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "- Load generator ceiling (a fixed-response server on the target's cores, loaded like the targets): " + strings.Join(parts, ", ") + "\n"
}

func scalingTable(b *strings.Builder, scenario string, rows []*analysis.Row) error {
	sc := analysis.ScalingRows(rows)
	if sc == nil {
		return nil
	}
	fmt.Fprintf(b, "### %s: core scaling\n\n", mdtext.Text(scenario))
	t := newTable(b)
	t.Header("target", "params", "conns", "cores", "RPS", "speed-up", "efficiency")
	for _, s := range sc {
		for _, p := range s.Points {
			rps := numfmt.Sig(p.RPS)
			if p.GeneratorBound {
				rps += " †"
			}
			if err := t.Append(mdtext.Text(s.Target), mdtext.Text(s.Params), connsText(s.Connections, s.Close), strconv.Itoa(p.CPUs), rps,
				numfmt.Sig(p.SpeedUp)+"×", numfmt.Sig(100*p.Efficiency)+"%"); err != nil {
				return err
			}
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\nSpeed-up is RPS over the RPS on the fewest cores; efficiency is speed-up over the ratio of cores. † generator-bound at that core count.\n\n")
	return nil
}

func countPartial(run *results.Run) int {
	n := 0
	for _, c := range run.Cells {
		if c.Status == results.Partial {
			n++
		}
	}
	return n
}

// partialText says how far a partial cell was measured: its figures are
// in no table.
func partialText(c *results.Cell) string {
	return fmt.Sprintf("%d of %d trials measured, shown in no table: the run stopped before the rest (`bin/harness run --resume` measures them)",
		len(c.Trials), c.TrialsAsked)
}

// notOK lists the failed, skipped and partial cells, each reason once
// with the cells it covers (a missing base image skips many).
func notOK(b *strings.Builder, run *results.Run) {
	for _, status := range []results.Status{results.Failed, results.Skipped, results.Partial} {
		var reasons []string
		cells := map[string][]string{}
		for _, c := range run.Cells {
			if c.Status != status {
				continue
			}
			r := mdtext.Text(c.Reason)
			if status == results.Partial {
				r = partialText(c)
			}
			if _, ok := cells[r]; !ok {
				reasons = append(reasons, r)
			}
			cells[r] = append(cells[r], mdtext.Code(c.ID()))
		}
		if len(reasons) == 0 {
			continue
		}
		fmt.Fprintf(b, "## %s cells\n\n", strings.ToUpper(string(status[:1]))+string(status[1:]))
		for _, r := range reasons {
			if ids := cells[r]; len(ids) == 1 {
				fmt.Fprintf(b, "- %s: %s\n", ids[0], r)
			} else {
				fmt.Fprintf(b, "- %d cells — %s: %s\n", len(ids), strings.Join(ids, ", "), r)
			}
		}
		b.WriteString("\n")
	}
	var warns []string
	for _, c := range run.Cells {
		w := slices.Clone(c.Warnings)
		if c.Status == results.OK && len(c.Trials) > 0 {
			// Spread problems the statistics found (a cold first trial).
			for _, sw := range analysis.RowOf(run, c).RPSStats.Warnings {
				if strings.HasPrefix(sw, "first trial") {
					w = append(w, "RPS: "+sw)
				}
			}
		}
		if len(w) > 0 {
			warns = append(warns, fmt.Sprintf("- %s: %s", mdtext.Code(c.ID()), mdtext.Text(strings.Join(w, "; "))))
		}
	}
	if len(warns) > 0 {
		fmt.Fprintf(b, "## Warnings\n\n%s\n", strings.Join(warns, "\n"))
	}
}

// machines writes the machines of a run on several engines side by side:
// the targets', then each load generator's.
func machines(b *strings.Builder, env results.Environment) {
	tg, _ := env.Machine(results.RoleTarget)
	var lgs []results.Machine
	for _, m := range env.Machines {
		if m.Role == results.RoleLoadgen {
			lgs = append(lgs, m)
		}
	}
	link := env.Link
	if link == "" {
		link = "not described (--link or placement.link)"
	}
	head := []any{"", "targets"}
	if len(lgs) == 1 {
		fmt.Fprintf(b, "- Two machines: targets on engine %s, the load generator on engine %s, each on its machine's host network; the link between them: %s\n\n",
			mdtext.Code(tg.Engine), mdtext.Code(lgs[0].Engine), mdtext.Text(link))
		head = append(head, "load generator")
	} else {
		names := make([]string, len(lgs))
		for i, m := range lgs {
			names[i] = mdtext.Code(m.Engine)
			head = append(head, "load generator "+mdtext.Text(m.Engine))
		}
		fmt.Fprintf(b, "- Several load generators: targets on engine %s; each cell's load divided among generators on engines %s, started together, their trials merged (each trial's spread is in results.json); each on its machine's host network; the links: %s\n\n",
			mdtext.Code(tg.Engine), strings.Join(names, ", "), mdtext.Text(link))
	}
	rows := []struct {
		name string
		of   func(m results.Machine) string
	}{
		{"engine", func(m results.Machine) string { return m.Engine + " (" + m.Host + ")" }},
		{"reached at", func(m results.Machine) string { return m.Address }},
		{"host name", func(m results.Machine) string { return m.Hostname }},
		{"CPU", func(m results.Machine) string { return m.CPUModel }},
		{"online CPUs", cores},
		{"kernel", func(m results.Machine) string { return m.Kernel }},
		{"OS", func(m results.Machine) string { return m.OS }},
		{"Docker", func(m results.Machine) string { return m.DockerVersion + " (" + m.StorageDriver + ")" }},
	}
	t := newTable(b)
	t.Header(head...)
	for _, r := range rows {
		cells := []any{r.name, mdtext.Text(r.of(tg))}
		for _, m := range lgs {
			v := r.of(m)
			if r.name == "reached at" {
				v = "" // the targets' address is where every generator reached them
			}
			cells = append(cells, mdtext.Text(v))
		}
		t.Append(cells...)
	}
	t.Render()
	b.WriteString("\n")
}

func cores(m results.Machine) string {
	if m.Reserved > 0 {
		return fmt.Sprintf("%d (%d reserved)", m.OnlineCPUs, m.Reserved)
	}
	return fmt.Sprint(m.OnlineCPUs)
}

// relativeTable writes every cell over its baseline under rel: the median
// of the trial-by-trial ratios with its interval, and what that says next
// to the run's noise floor.
func relativeTable(b *strings.Builder, run *results.Run, rel cellid.Relative) {
	rows := analysis.Relatives(run, rel)
	dim, value := rel.Dimension()
	fmt.Fprintf(b, "## Relative to %s %s\n\n", dim, mdtext.Code(value))
	if len(rows) == 0 {
		fmt.Fprintf(b, "No ok cell has an ok baseline with %s %s.\n\n", dim, mdtext.Code(value))
		return
	}
	down, up := analysis.NoiseReach(run)
	fmt.Fprintf(b, "Each cell's RPS over its baseline's (the same cell with %s %s), trial by trial: trial k of one over trial k of the other, "+
		"which ran in the same round when trials are interleaved. Median of those ratios; 95%% interval from six pairs, min…max below.", dim, mdtext.Code(value))
	switch noise := analysis.Noise(run); {
	case noise >= analysis.MaxNoiseFloor:
		fmt.Fprintf(b, " The A/A controls moved by ±%.0f%% by themselves: too wide to apply (see the top), so a change reads as one wherever its interval excludes 1.", 100*noise)
		down, up = 0, 0
	case noise > 0:
		fmt.Fprintf(b, " A change reads as noise when its interval does not reach past what the A/A controls moved by themselves in that direction (down %s%%, up %s%%).",
			numfmt.Sig(100*down), numfmt.Sig(100*up))
	}
	b.WriteString("\n\n")
	t := newTable(b)
	t.Header("cell", "baseline", "median RPS", "baseline median RPS", "ratio", "interval", "pairs", "reading")
	for _, r := range rows {
		interval := numfmt.Sig(r.Lo) + "…" + numfmt.Sig(r.Hi)
		if !r.HasCI {
			interval += " (min…max)"
		}
		t.Append(mdtext.Text(r.Cell.ID()), mdtext.Text(r.Base.ID()), numfmt.Sig(r.Cell.Summary.RPSMedian), numfmt.Sig(r.Base.Summary.RPSMedian),
			numfmt.Sig(r.Ratio)+"×", interval, strconv.Itoa(r.N), reading(r.PairedRatio, down, up))
	}
	t.Render()
	b.WriteString("\n")
}

// reading says what a paired ratio shows: a change whose interval excludes
// 1 and reaches past how far the A/A controls moved in that direction
// (down, up), else that it is not distinguishable.
func reading(r analysis.PairedRatio, down, up float64) string {
	change := func(x float64) string { return fmt.Sprintf("%+.0f%%", 100*(x-1)) }
	switch {
	case r.N < 3:
		return "too few pairs"
	case r.Lo > 1 && r.Lo-1 > up, r.Hi < 1 && 1-r.Hi > down:
		return change(r.Ratio)
	case r.Lo > 1 || r.Hi < 1:
		return change(r.Ratio) + ", within noise"
	}
	return "no difference shown"
}
