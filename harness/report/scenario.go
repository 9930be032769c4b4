package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// mainColumns is the most columns a scenario's main table may have: past
// it GitHub scrolls the table sideways, and the figure a reviewer came for
// is lost among the others, which the details table holds.
const mainColumns = 10

// scenarioTable writes a scenario's main table (its ok cells measured as
// fast as the generator could, in Rows' order, and its failed cells), the
// details of those rows, then its sub-tables: cross-check, fixed rates,
// capacity, services, protocols, footprint and core scaling.
func scenarioTable(b *strings.Builder, run *results.Run, scenario string) error {
	all, failing := analysis.Rows(run, scenario), analysis.Failing(run, scenario)
	// A fixed-rate cell that failed with trials (a rate not sustained) is
	// a row of the fixed-rate table, marked there.
	failing = slices.DeleteFunc(failing, func(c *results.Cell) bool { return c.Rate > 0 && len(c.Trials) > 0 })
	if len(all) == 0 && len(failing) == 0 && len(analysis.RateRows(run, scenario)) == 0 {
		return nil
	}
	rows := analysis.FullSpeed(all)
	pl := placeOf(rows, failing)
	hasParams := pl.anyParams
	fmt.Fprintf(b, "## %s\n\n", mdtext.Text(scenario))
	if len(rows) > 0 || len(failing) > 0 {
		if err := mainTable(b, run, rows, failing, pl); err != nil {
			return err
		}
		if err := detailsTable(b, scenario, rows, failing, pl); err != nil {
			return err
		}
	}
	if err := crosscheckTable(b, run, scenario, hasParams); err != nil {
		return err
	}
	if err := fixedRateTable(b, run, scenario); err != nil {
		return err
	}
	if err := capacityTable(b, run, scenario, hasParams); err != nil {
		return err
	}
	if err := serviceTable(b, scenario, all, hasParams); err != nil {
		return err
	}
	if err := protocolTable(b, scenario, rows, hasParams); err != nil {
		return err
	}
	if err := footprintTable(b, scenario, rows, hasParams); err != nil {
		return err
	}
	return scalingTable(b, scenario, rows)
}

// mainTable writes the figures a reviewer came for, one row per cell led
// by its rank, in at most mainColumns columns (p50 and p99 share one to
// leave room for the rank), then the order each group's trials show and
// the notes its marks call for.
func mainTable(b *strings.Builder, run *results.Run, rows []*analysis.Row, failing []*results.Cell, pl place) error {
	agg := run.Matrix.Load.Aggregate
	if len(rows) > 0 {
		agg = rows[0].Aggregate
	}
	sp, cpu := spreadOf(agg == results.AggregateBest), spreadOf(false)
	for _, r := range rows {
		sp.add(r.RPSStats)
		cpu.add(r.CPUPerAnswerStats)
	}
	rps := "RPS, median"
	if sp.best {
		rps = "RPS, best trial"
	}
	if name := sp.name(); name != "" {
		rps += " (" + name + ")"
	}
	cpuHead := "CPU µs/answer"
	if name := cpu.name(); name != "" {
		cpuHead += " (" + name + ")"
	}
	if line := pl.shared(); line != "" {
		b.WriteString(line + "\n\n")
	}
	t := newTable(b)
	header := append(append([]any{"rank"}, pl.header()...), rps, "vs fastest", "bounded by", "p50 · p99 ms", "errors", cpuHead, "peak MiB")
	t.Header(header...)
	mk := marks{spread: sp, cpu: cpu, floor: analysis.NoiseApplied(run) > 0}
	for _, r := range rows {
		if err := t.Append(mk.row(r, pl)...); err != nil {
			return err
		}
	}
	for _, c := range failing {
		row := append(append([]any{"—"}, pl.cells(c.Label(), c.ParamText(), c.Cores(), c.Connections, c.Close)...), "**fails**")
		for len(row) < len(header) {
			row = append(row, "—")
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	notes := append(orderLines(rows, pl), mk.notes(len(rows) > 0)...)
	for _, c := range failing {
		notes = append(notes, fmt.Sprintf("**fails** %s: %s", mdtext.Code(c.ID()), mdtext.Text(c.Reason)))
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "  \n") + "\n")
	}
	b.WriteString("\n")
	return nil
}

// detailsTable writes every figure of the main table's rows that the main
// table leaves out (the CSV and JSON have them too).
func detailsTable(b *strings.Builder, scenario string, rows []*analysis.Row, failing []*results.Cell, pl place) error {
	fmt.Fprintf(b, "### %s: details\n\n", mdtext.Text(scenario))
	t := newTable(b)
	t.Header(append(pl.header(), "trials", "RPS CV", "% of ceiling", "CPU cores", "MB/s", "mean ms", "max ms", "runtime")...)
	for _, r := range rows {
		cv, ceiling := "—", "—"
		if r.RPSStats.N > 1 {
			cv = numfmt.Sig(100*r.RPSStats.CV) + "%"
		}
		if r.CeilingShare > 0 {
			ceiling = numfmt.Percent(r.CeilingShare)
		}
		row := append(pl.cells(r.Target, r.Params, r.Cores, r.Connections, r.Close), strconv.Itoa(r.RPSStats.N), cv, ceiling,
			cpuText(r.TargetCPU), numfmt.Sig(r.MBps), meanText(r.MeanMS), meanText(r.MaxMS), mdtext.Text(r.Runtime))
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	for _, c := range failing {
		runtime := ""
		if c.Image != nil {
			runtime = mdtext.Text(c.Image.RuntimeVersion)
		}
		row := append(pl.cells(c.Label(), c.ParamText(), c.Cores(), c.Connections, c.Close), "**fails**", "—", "—", "—", "—", "—", "—", runtime)
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\ntrials: the trials measured. RPS CV: their RPS's coefficient of variation (⚠ past " + fmt.Sprintf("%.0f%%", 100*analysis.NoisyCV) + "). " +
		"% of ceiling: the headline RPS over the load generator's measured ceiling on the same cores and connections (— where none was measured). " +
		"CPU cores: the target's, median over the trials. " +
		"MB/s: bytes read (headers included) per second, median over the trials; mean: the trials' mean latencies, their median; max: the longest request of any trial. " +
		"runtime: what the target's image reports it runs on.\n\n")
	return nil
}

// marks collects what the rows of a main table were marked with, for the
// notes under it.
type marks struct {
	spread, cpu                    spread // the RPS column's intervals, the CPU per answer column's
	floor                          bool   // the run's noise floor is applied to vs fastest
	noisy, unsure, notSig, control bool
	paired                         bool
	ranked                         bool         // some row has a rank
	bound                          []string     // one note per generator-bound row
	waiting                        []string     // one note per row bounded by neither
	unclear                        []string     // one note per row the CPU figures do not place
	shared                         []string     // one note per row whose generator shared the target's cores
	database                       []string     // one note per row bounded by its database's cores
	unknown                        []string     // one note per row whose bound rested on a beaten ceiling
	placed                         []placedRows // rows placed otherwise for want of cores, by how
}

// placedRows are the rows one placement sentence holds for: on one machine
// every cell of a scenario is usually placed the same way, said once.
type placedRows struct {
	how string
	ids []string
}

// place adds row id to the rows placed as how.
func (mk *marks) place(id, how string) {
	for i := range mk.placed {
		if mk.placed[i].how == how {
			mk.placed[i].ids = append(mk.placed[i].ids, mdtext.Code(id))
			return
		}
	}
	mk.placed = append(mk.placed, placedRows{how: how, ids: []string{mdtext.Code(id)}})
}

// row is r's line of the main table.
func (mk *marks) row(r *analysis.Row, pl place) []any {
	rps := numfmt.Sig(r.RPS)
	if len(r.BoundBy) > 0 {
		rps += " †"
		mk.bound = append(mk.bound, fmt.Sprintf("† %s: %s%s.", mdtext.Code(r.ID), mdtext.Text(strings.Join(r.BoundBy, "; ")), judgedWith(r.Bounding)))
	}
	if r.Noisy {
		rps += " ⚠"
		mk.noisy = true
	}
	if iv := mk.spread.text(r.RPSStats, numfmt.Sig); iv != "—" {
		rps += " (" + iv + ")"
	}
	ratio := "—"
	if r.Control {
		mk.control = true
	} else {
		ratio = numfmt.Sig(r.VsFastest) + "×"
		switch r.Versus {
		case "~":
			ratio += " ~"
			mk.notSig = true
		case "?":
			ratio += " ?"
			mk.unsure = true
		}
	}
	mk.paired = mk.paired || r.BoundWith != ""
	if r.Placement != "" {
		mk.place(r.ID, r.Placement)
	}
	mk.ranked = mk.ranked || r.RankLo > 0
	row := append([]any{rankText(r.Ranking)}, pl.cells(r.Target, r.Params, r.Cores, r.Connections, r.Close)...)
	return append(row, rps, ratio, mk.boundLabel(r), latencyText(r.P50.Median, r.P99.Median),
		numfmt.Percent(r.ErrorRate), mk.cpuPerAnswer(r.Footprint), numfmt.Sig(r.PeakMiB))
}

// latencyText is the main table's p50 · p99 cell; "—" without either.
func latencyText(p50, p99 float64) string {
	if p50 == 0 && p99 == 0 {
		return "—"
	}
	return meanText(p50) + " · " + meanText(p99)
}

// rankText is a row's rank interval, "2–3" (or "2" when it is one rank);
// "—" for a row not ranked, an A/A control.
func rankText(r analysis.Ranking) string {
	switch {
	case r.RankLo == 0:
		return "—"
	case r.RankLo == r.RankHi:
		return strconv.Itoa(r.RankLo)
	}
	return strconv.Itoa(r.RankLo) + "–" + strconv.Itoa(r.RankHi)
}

// orderLines say, for each group of two or more rows ranked together in
// a main table, the order its trials show: the targets in rank order,
// ">" between two whose first is shown faster than the next
// (distinguishable), "≈" between two not shown apart (a tie), so that
// no line claims an order the trials do not. A table of rows at several
// settings names each group's.
func orderLines(rows []*analysis.Row, pl place) []string {
	var out []string
	for _, g := range analysis.RankGroups(rows) {
		if len(g) < 2 {
			continue
		}
		var parts []string
		for _, r := range g {
			parts = append(parts, mdtext.Text(r.Target))
			if r.VsNext != "" {
				parts = append(parts, nextSign[r.VsNext])
			}
		}
		label := ""
		if cells, head := pl.cells(g[0].Target, g[0].Params, g[0].Cores, g[0].Connections, g[0].Close), pl.header(); len(cells) > 1 {
			label = fmt.Sprintf(" (%s: %s)", head[1], cells[1])
		}
		out = append(out, fmt.Sprintf("Order shown%s: %s.", label, strings.Join(parts, " ")))
	}
	return out
}

// nextSign is how an order line writes a row against the next.
var nextSign = map[string]string{analysis.Distinguishable: ">", analysis.Tie: "≈"}

// cpuPerAnswer is f's CPU time per good answer with its interval; "—"
// where no trial had CPU samples.
func (mk *marks) cpuPerAnswer(f analysis.Footprint) string {
	if f.CPUPerAnswerStats.N == 0 || f.CPUPerAnswer == 0 {
		return "—"
	}
	text := numfmt.Sig(f.CPUPerAnswer)
	if iv := mk.cpu.text(f.CPUPerAnswerStats, numfmt.Sig); iv != "—" {
		text += " (" + iv + ")"
	}
	return text
}

// boundLabel is r's bounded-by cell; the bounds that need their figures
// get a note.
func (mk *marks) boundLabel(r *analysis.Row) string {
	why := fmt.Sprintf("%s: %s%s.", mdtext.Code(r.ID), mdtext.Text(boundFigures(r.Bounding)), judgedWith(r.Bounding))
	switch r.Bound {
	case analysis.BoundGenerator:
		return "generator †"
	case analysis.BoundServer:
		return "server cores"
	case analysis.BoundWaiting:
		mk.waiting = append(mk.waiting, why)
		return "**waiting**"
	case analysis.BoundShared:
		mk.shared = append(mk.shared, why)
		return "shared cores"
	case analysis.BoundUnclear:
		mk.unclear = append(mk.unclear, why)
		return "unclear"
	case analysis.BoundDatabase:
		mk.database = append(mk.database, why)
		return "database"
	case analysis.BoundUnknown:
		mk.unknown = append(mk.unknown, why)
		return "**unknown**"
	}
	return "—"
}

// boundFigures words the figures b's bound was judged on; "" without them.
func boundFigures(b analysis.Bounding) string {
	f := b.BoundWhy
	if f == nil {
		return ""
	}
	return serverFigures(b.Bound, f) + databaseFigures(f)
}

// serverFigures words the server's and the generator's figures of bound.
func serverFigures(bound string, f *analysis.BoundFigures) string {
	switch bound {
	case analysis.BoundShared:
		return fmt.Sprintf("the generator took %.0f%% of the CPU the two used (server %.2f, generator %.2f cores, on %s)",
			100*f.GeneratorCPU/(f.ServerCPU+f.GeneratorCPU), f.ServerCPU, f.GeneratorCPU, f.CPUSet)
	case analysis.BoundDatabase:
		if f.ServerWithGenerator {
			return fmt.Sprintf("server and load generator at %.0f%% of the server's %d core(s) (server %.2f, generator %.2f cores)",
				100*f.ServerShare, f.CPUs, f.ServerCPU, f.GeneratorCPU)
		}
		fallthrough
	case analysis.BoundUnknown:
		if f.GeneratorCores == 0 {
			return fmt.Sprintf("server at %.0f%% of its %d core(s), the load generator's CPU not sampled", 100*f.ServerShare, f.CPUs)
		}
	case analysis.BoundGenerator, analysis.BoundServer:
		return fmt.Sprintf("server at %.0f%% of its %d core(s)", 100*f.ServerShare, f.CPUs)
	}
	return fmt.Sprintf("server at %.0f%% of its %d core(s), load generator at %.0f%% of its %d", 100*f.ServerShare, f.CPUs, 100*f.GeneratorShare, f.GeneratorCores)
}

// databaseFigures words the figures of a database on cores of its own;
// "" for none.
func databaseFigures(f *analysis.BoundFigures) string {
	if f.DatabaseCores == 0 {
		return ""
	}
	return fmt.Sprintf("; database at %.0f%% of its own %d core(s) %s (%.2f cores)", 100*f.DatabaseShare, f.DatabaseCores, f.DatabaseCPUSet, f.DatabaseCPU)
}

// judgedWith says, for an A/A control or its twin, that its bound b was
// judged over the trials of both.
func judgedWith(b analysis.Bounding) string {
	if b.BoundWith == "" {
		return ""
	}
	return " (judged over this cell's trials and " + mdtext.Code(b.BoundWith) + "'s together)"
}

// notes explain the marks under the table; measured says the table has
// measured rows.
func (mk *marks) notes(measured bool) []string {
	var notes []string
	if len(mk.bound) > 0 {
		notes = append(notes, fmt.Sprintf("† generator-bound: at ≥ %.0f%% of the load generator's measured ceiling, or its CPU at ≥ %.0f%% of its cores; the number is a floor set by the load generator, not the server's limit.",
			100*analysis.CeilingBound, 100*analysis.GeneratorBoundShare))
		notes = append(notes, mk.bound...)
	}
	if len(mk.waiting) > 0 {
		notes = append(notes, fmt.Sprintf("**waiting**: bounded neither by the server's cores (its CPU under %.0f%% of them) nor by the load generator: "+
			"the server waited, and the number measures its waiting, not its speed. Usual causes: I/O, locks, a small listen backlog, "+
			"Nagle's algorithm meeting delayed ACKs.", 100*analysis.ServerBoundShare))
		notes = append(notes, mk.waiting...)
	}
	if len(mk.shared) > 0 {
		notes = append(notes, "shared cores: the load generator ran on the target's own cores (together) or neither was pinned (unpinned), "+
			"so the CPU cannot tell which of the two bounded the cell, and the generator's CPU rule of † does not apply; the generator's share of the CPU is given. "+
			"A ceiling, where measured, was measured the same way: the generator beside the fixed-response server on those cores.")
		notes = append(notes, mk.shared...)
	}
	if len(mk.database) > 0 {
		notes = append(notes, fmt.Sprintf("database: the database's own cores were at ≥ %.0f%% and the server's under it (the load generator's CPU counted on them where it shared them): "+
			"the number measures the database on its cores, not the server.", 100*analysis.ServerBoundShare))
		notes = append(notes, mk.database...)
	}
	if len(mk.placed) > 0 {
		notes = append(notes, "placement: the machine had too few cores to give the server, each service with cores of its own (cpus: in the matrix) and the load generator cores of their own; what it did instead:")
		for _, p := range mk.placed {
			notes = append(notes, fmt.Sprintf("%s: %s.", strings.Join(p.ids, ", "), mdtext.Text(p.how)))
		}
	}
	if len(mk.unknown) > 0 {
		notes = append(notes, "**unknown**: at or above "+fmt.Sprintf("%.0f%%", 100*analysis.CeilingBound)+" of a load generator ceiling that a cell beat (see the ceiling line at the top): "+
			"that ceiling is wrong, so it cannot say the generator bounded the cell, and the CPU figures do not say what did.")
		notes = append(notes, mk.unknown...)
	}
	if len(mk.unclear) > 0 {
		notes = append(notes, fmt.Sprintf("unclear: the server used %.0f–%.0f%% of its cores and the load generator had room: the CPU figures do not say what bounded it "+
			"(the kernel's work for a connection is not always charged to the server's container).", 100*analysis.WaitingShare, 100*analysis.ServerBoundShare))
		notes = append(notes, mk.unclear...)
	}
	return append(notes, mk.legend(measured)...)
}

// legend explains the marks and columns every main table may have.
func (mk *marks) legend(measured bool) []string {
	var notes []string
	if mk.noisy {
		notes = append(notes, fmt.Sprintf("⚠ noisy: the trials' coefficient of variation exceeds %.0f%%.", 100*analysis.NoisyCV))
	}
	if mk.notSig {
		within := ", or the difference is within the noise floor"
		if !mk.floor {
			within = "" // none measured, or one too wide to apply
		}
		notes = append(notes, "~ not significantly slower than the fastest: their 95% intervals (min…max with fewer than 6 trials) overlap"+within+".")
	}
	if mk.unsure {
		notes = append(notes, "? one trial: no way to tell the difference from noise.")
	}
	if mk.ranked {
		notes = append(notes, mk.rankLegend())
	}
	if mk.control {
		notes = append(notes, "— in vs fastest: an A/A control, its twin measured again to show the machine's noise; it is compared with nothing, and the fastest is picked without it.")
	}
	if mk.paired {
		notes = append(notes, "An A/A control and its twin are one server: they get one bounded by, judged over both cells' trials together.")
	}
	if measured {
		notes = append(notes, "errors: the share of requests that got another status class or no answer, in the trials behind the headline number. "+
			"p50 · p99: medians over the trials. CPU µs/answer: the target's CPU time over its good answers, median over the trials, with its interval (the CPU in cores is in the details); peak MiB: its largest memory in any trial. "+
			fmt.Sprintf("bounded by: the load generator (†), else the server's cores (its CPU at ≥ %.0f%% of them), else neither (**waiting**: under %.0f%%, the generator with room; unclear between); — where CPU was not sampled.",
				100*analysis.ServerBoundShare, 100*analysis.WaitingShare))
	}
	return notes
}

// rankLegend explains the rank column and the order lines.
func (mk *marks) rankLegend() string {
	floor := ""
	if mk.floor {
		floor = ", and never by less than the noise floor"
	}
	return "rank: where a row stands among the rows of the same settings (controls aside), every rank in the range consistent with the trials at 95% for the whole group at once: " +
		"each pair of rows is tested, trial against trial of the same round where the run interleaved them and had rounds enough (the sign test), else by the Mann-Whitney U test, " +
		"with Holm's correction over the group's pairs" + floor + ". A row's first rank is 1 + the rows shown faster, its last the rows not shown slower. " +
		"Order shown: > distinguishable, the row before shown faster than the next; ≈ tie, not shown apart (which claims no order). " +
		"vs fastest's ~ judges one pair by its intervals alone; where the two disagree, the rank is what holds for the group."
}

// spread is what the intervals of a column show of each cell's trials: the
// 95% CI of the median, or min…max where a cell has too few trials for one
// (or its headline is the best trial, picked from that range). The column
// is headed by what its cells hold, so that no header hedges on a trial
// count a reader could take for the run's.
type spread struct {
	best       bool // the headline is the best trial: min…max, always
	ci, minmax bool // some cell shows that kind
}

func spreadOf(best bool) spread { return spread{best: best} }

// add counts s's interval in the column.
func (sp *spread) add(s analysis.Stats) {
	switch {
	case s.N < 2:
	case s.HasCI && !sp.best:
		sp.ci = true
	default:
		sp.minmax = true
	}
}

// name heads the column: what its intervals are; "" when every cell had
// one trial.
func (sp spread) name() string {
	switch {
	case sp.ci && sp.minmax:
		return "95% CI, or min…max where so marked"
	case sp.ci:
		return "95% CI"
	case sp.minmax:
		return "min…max"
	}
	return ""
}

// text is s's interval under the column's name, its ends formatted by f;
// "—" for one trial or none.
func (sp spread) text(s analysis.Stats, f func(float64) string) string {
	switch {
	case s.N < 2:
		return "—"
	case s.HasCI && !sp.best:
		return f(s.Lo) + "…" + f(s.Hi)
	case sp.ci:
		return "min…max " + f(s.Min) + "…" + f(s.Max)
	}
	return f(s.Min) + "…" + f(s.Max)
}

// place is where the rows of a scenario's tables ran: their params, cores
// and connections. What every row shares is said once, above the main
// table; what differs takes one column, so that a run of one setting
// spends no column on it and the main table keeps to mainColumns.
type place struct {
	loop, params, cores, conns bool // which differ between the rows
	anyParams                  bool // some row has params
	first                      placeKey
	n                          int
}

type placeKey struct {
	loop   string // a fixed-rate row's: "open" or "closed, rate-limited"; "" elsewhere
	params string
	cores  int
	conns  int
	close  bool
}

// loopText is how a fixed-rate row's generator kept its rate, as a column
// of the table says it.
func loopText(open bool) string {
	if open {
		return "open"
	}
	return "closed, rate-limited"
}

func placeOf(rows []*analysis.Row, failing []*results.Cell) place {
	var pl place
	for _, r := range rows {
		pl.add(placeKey{params: r.Params, cores: r.Cores, conns: r.Connections, close: r.Close})
	}
	for _, c := range failing {
		pl.add(placeKey{params: c.ParamText(), cores: c.Cores(), conns: c.Connections, close: c.Close})
	}
	return pl
}

// ratePlaceOf is placeOf for the rows of a fixed-rate table, whose loop
// (open or closed) is a setting too.
func ratePlaceOf(rows []*analysis.Row) place {
	var pl place
	for _, r := range rows {
		pl.add(placeKey{loop: loopText(r.OpenLoop), params: r.Params, cores: r.Cores, conns: r.Connections, close: r.Close})
	}
	return pl
}

// add counts a row at k.
func (pl *place) add(k placeKey) {
	if pl.n == 0 {
		pl.first = k
	}
	pl.n++
	pl.loop = pl.loop || k.loop != pl.first.loop
	pl.params = pl.params || k.params != pl.first.params
	pl.cores = pl.cores || k.cores != pl.first.cores
	pl.conns = pl.conns || k.conns != pl.first.conns || k.close != pl.first.close
	pl.anyParams = pl.anyParams || k.params != ""
}

// header is the table's first columns: the target, then what differs
// between its rows ("params · cores"), if anything does.
func (pl place) header() []any {
	var parts []string
	for _, p := range []struct {
		on   bool
		name string
	}{{pl.loop, "loop"}, {pl.params, "params"}, {pl.cores, "cores"}, {pl.conns, "conns"}} {
		if p.on {
			parts = append(parts, p.name)
		}
	}
	if len(parts) == 0 {
		return []any{"target"}
	}
	return []any{"target", strings.Join(parts, " · ")}
}

// cells is a row's cells under header.
func (pl place) cells(target, params string, cores, conns int, close bool) []any {
	return pl.loopCells("", target, params, cores, conns, close)
}

// loopCells is cells for a row of a fixed-rate table, with its loop.
func (pl place) loopCells(loop, target, params string, cores, conns int, close bool) []any {
	var parts []string
	if pl.loop {
		parts = append(parts, loop)
	}
	if pl.params {
		parts = append(parts, cmp.Or(mdtext.Text(params), "—"))
	}
	if pl.cores {
		parts = append(parts, strconv.Itoa(cores))
	}
	if pl.conns {
		parts = append(parts, connsText(conns, close))
	}
	if len(parts) == 0 {
		return []any{mdtext.Text(target)}
	}
	return []any{mdtext.Text(target), strings.Join(parts, " · ")}
}

// shared is the line that says what every row shares; "" when nothing is.
func (pl place) shared() string {
	if pl.n == 0 {
		return ""
	}
	var parts []string
	if !pl.loop && pl.first.loop != "" {
		loop := "closed loop, rate-limited"
		if pl.first.loop == loopText(true) {
			loop = "open loop"
		}
		parts = append(parts, loop)
	}
	if !pl.params && pl.first.params != "" {
		parts = append(parts, mdtext.Text(pl.first.params))
	}
	if !pl.cores {
		parts = append(parts, fmt.Sprintf("%d core(s)", pl.first.cores))
	}
	if !pl.conns {
		conns := fmt.Sprintf("%d connections", pl.first.conns)
		if pl.first.close {
			conns += ", keep-alive off"
		}
		parts = append(parts, conns)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Every row: " + strings.Join(parts, ", ") + "."
}
