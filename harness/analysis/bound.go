package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"slices"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/stats"
)

// What bounded a cell measured as fast as the generator could.
const (
	BoundGenerator = "generator"    // † : the load generator's ceiling or its CPU
	BoundServer    = "server cores" // the target used ServerBoundShare of its cores or more
	BoundWaiting   = "waiting"      // neither: the server waited (I/O, locks, a backlog, Nagle meeting delayed ACKs)
	BoundUnclear   = "unclear"      // the server between WaitingShare and ServerBoundShare of its cores: the figures do not tell
	BoundShared    = "shared cores" // the generator on the target's cores (pinning together or none): the two cannot be told apart
	BoundDatabase  = "database"     // the database's own cores at ServerBoundShare or more, the server's below it
	BoundUnknown   = "unknown"      // the ceiling rule called it generator-bound, the ceiling was beaten, and the CPU figures do not place it
)

// DatabaseService is the service of a target that is its database, by
// the convention of targets/database: the bound reads its CPU by this name.
const DatabaseService = "db"

// ServerBoundShare is the share of its cores a target must use for its
// cell to be bounded by them; under WaitingShare, with the generator below
// GeneratorBoundShare, the server waited. Between the two the CPU figures
// do not tell, and the cell says so, with them.
const (
	ServerBoundShare = 0.90
	WaitingShare     = 0.50
)

// BoundFigures are the CPU figures a cell's bound was judged on; the
// report words them. Shares are of the cores each side had.
type BoundFigures struct {
	ServerCPU      float64 `json:"server_cpu_cores"` // median over the trials
	ServerShare    float64 `json:"server_share"`     // ServerCPU over CPUs (0 with shared cores)
	CPUs           int     `json:"cpus"`
	GeneratorCPU   float64 `json:"generator_cpu_cores,omitempty"` // unclear, waiting and shared cores only
	GeneratorShare float64 `json:"generator_share,omitempty"`     // over GeneratorCores (unclear and waiting)
	GeneratorCores int     `json:"generator_cores,omitempty"`
	CPUSet         string  `json:"cpuset,omitempty"` // shared cores: the set the two ran on
	// The database's CPU, median over the trials, and its share of the
	// cores of its own it had (database, and every bound of a cell whose
	// database had cores of its own).
	DatabaseCPU    float64 `json:"database_cpu_cores,omitempty"`
	DatabaseShare  float64 `json:"database_share,omitempty"`
	DatabaseCores  int     `json:"database_cores,omitempty"`
	DatabaseCPUSet string  `json:"database_cpuset,omitempty"`
	// ServerWithGenerator: the server's cores were shared with the load
	// generator, whose CPU ServerShare then includes.
	ServerWithGenerator bool `json:"server_with_generator,omitempty"`
}

// evidence is what a bound is judged from: one cell's trials, or an A/A
// pair's together (see pairBounds).
type evidence struct {
	trials    []results.Trial
	targetCPU float64          // the server's CPU in cores, median over the trials
	summary   *results.Summary // the generator rules that fired, as codes (see generatorRules)
	beaten    bool             // the ceiling the summary was judged against was beaten (see BeatenCeilings)
}

// judgeBound says what bounded r, with the figures: the generator (†, its
// ceiling or CPU), else the database when it had cores of its own and
// used ServerBoundShare of them while the server's were below it, else
// the server's cores (its CPU, the database's left out when it had cores
// of its own, at ServerBoundShare of them or more), else neither — the
// server waited, and the number measures its waiting, not its speed.
// The ceiling's rule gives way to the server's own CPU at ServerBoundShare
// or more, and holds nothing when the ceiling was beaten: a cell it alone
// called generator-bound is then unknown, unless the CPU places it.
// Fixed-rate cells are bounded by their rate: no judgement.
func judgeBound(r *Row, c *results.Cell, e evidence) {
	if r.Rate > 0 || len(e.trials) == 0 {
		return
	}
	var lg []float64
	for _, t := range e.trials {
		lg = append(lg, t.LoadgenCPUCores)
	}
	lgCores := 0
	if set, err := cpuset.Parse(c.LoadgenCPUSet); err == nil {
		lgCores = len(set) * max(len(c.Split), 1) // several generators: their CPU is summed, and so are their cores
	}
	lgCPU := stats.Describe(lg).Median
	db := databaseOf(c, e.trials)
	if db != nil {
		e.targetCPU = db.serverCPU // the server's cores hold the server alone (and the generator, shared)
	}
	server := 0.0
	if r.CPUs > 0 {
		server = e.targetCPU / float64(r.CPUs)
	}
	rules, void := generatorRules(e.summary, e.beaten, r.Pinning == "" && server >= ServerBoundShare)
	r.BoundBy = rules
	if db != nil && len(rules) == 0 && db.judge(r, c, lgCPU) {
		return
	}
	if r.Pinning != "" { // the generator shares the target's cores
		if total := e.targetCPU + lgCPU; total > 0 {
			r.Bound = BoundShared
			r.BoundWhy = &BoundFigures{ServerCPU: e.targetCPU, CPUs: r.CPUs, GeneratorCPU: lgCPU, CPUSet: c.CPUSet}
			db.figures(r.BoundWhy)
		}
		return
	}
	why := &BoundFigures{ServerCPU: e.targetCPU, ServerShare: server, CPUs: r.CPUs}
	db.figures(why)
	switch {
	case len(rules) > 0:
		r.Bound, r.BoundWhy = BoundGenerator, why
	case server >= ServerBoundShare:
		r.Bound, r.BoundWhy = BoundServer, why
	case e.targetCPU == 0 || lgCores == 0:
		if void {
			r.Bound, r.BoundWhy = BoundUnknown, why
		}
		// else CPU not sampled (a trial shorter than two samples): nothing to tell
	default:
		lgShare := lgCPU / float64(lgCores)
		why.GeneratorCPU, why.GeneratorShare, why.GeneratorCores = lgCPU, lgShare, lgCores
		switch {
		case void:
			r.Bound = BoundUnknown
		case server < WaitingShare && lgShare < GeneratorBoundShare:
			r.Bound = BoundWaiting
		default:
			r.Bound = BoundUnclear
		}
		r.BoundWhy = why
	}
}

// database is what a cell's database used on cores of its own, and what
// its server used on the cell's.
type database struct {
	cpu       float64 // the database's CPU, median over the trials
	cores     cpuset.Set
	serverCPU float64 // the target's CPU less the database's, median over the trials
}

// databaseOf is what c's database used on cores of its own, disjoint from
// the server's and the load generator's; nil when it had none (it shared
// the server's cores, or c has no database service).
func databaseOf(c *results.Cell, trials []results.Trial) *database {
	set, err := cpuset.Parse(c.ServiceCPUSets[DatabaseService])
	server, _ := cpuset.Parse(c.CPUSet)
	lg, _ := cpuset.Parse(c.LoadgenCPUSet)
	if err != nil || len(set) == 0 || cpuset.Overlaps(set, server) || cpuset.Overlaps(set, lg) {
		return nil
	}
	var dbCPU, serverCPU []float64
	for _, t := range trials {
		u, ok := t.Services[DatabaseService]
		if !ok {
			return nil // not measured apart: nothing to tell
		}
		dbCPU = append(dbCPU, u.CPUCores)
		serverCPU = append(serverCPU, t.TargetCPUCores-u.CPUCores)
	}
	return &database{cpu: stats.Describe(dbCPU).Median, cores: set, serverCPU: stats.Describe(serverCPU).Median}
}

// judge bounds r by the database when its cores were saturated
// (ServerBoundShare) and the server's were not, counting on the server's
// the load generator's CPU when it shared them; false when not so.
func (d *database) judge(r *Row, c *results.Cell, lgCPU float64) bool {
	if r.CPUs <= 0 || d.cpu == 0 {
		return false
	}
	withGen := c.LoadgenCPUSet == c.CPUSet
	onServer := d.serverCPU
	if withGen {
		onServer += lgCPU
	}
	why := &BoundFigures{ServerCPU: d.serverCPU, ServerShare: onServer / float64(r.CPUs), CPUs: r.CPUs, ServerWithGenerator: withGen}
	d.figures(why)
	if why.DatabaseShare < ServerBoundShare || why.ServerShare >= ServerBoundShare {
		return false
	}
	if withGen {
		why.GeneratorCPU = lgCPU
	}
	r.Bound, r.BoundWhy = BoundDatabase, why
	return true
}

// figures adds the database's figures to why; nothing for a database
// without cores of its own.
func (d *database) figures(why *BoundFigures) {
	if d == nil || len(d.cores) == 0 {
		return
	}
	why.DatabaseCPU, why.DatabaseShare, why.DatabaseCores, why.DatabaseCPUSet = d.cpu, d.cpu/float64(len(d.cores)), len(d.cores), d.cores.String()
}

// pairBounds gives each A/A control among rows and its twin one bound,
// and returns each of the two rows' other (nil for a row without one).
//
// The two are one server measured twice, so what bounded it is judged
// once, over the trials of both cells together, as if they were one cell
// of twice the trials: the generator rules read the pooled headline
// against the ceiling the runner used (any trial with the generator's CPU
// past its share counts), and the CPU rules the medians of the server's
// and the generator's CPU over all the trials. Judged apart, a pair whose
// figures straddle a threshold showed two labels for one server. Both
// rows then carry the pair's BoundBy, Bound and BoundWhy (so their † and
// their label agree), and BoundWith names the other; each keeps its own
// ceiling share and count of generator-bound trials.
func pairBounds(run *results.Run, rows []*Row) map[*Row]*Row {
	twins := map[*Row]*Row{}
	byID := map[string]*Row{}
	for _, r := range rows {
		if !r.Control {
			byID[r.ID] = r
		}
	}
	for _, ctl := range rows {
		if !ctl.Control || ctl.cell == nil {
			continue
		}
		k := ctl.cell.Key()
		k.Control = false
		twin := byID[k.ID()]
		if twin == nil || twin.cell == nil {
			continue
		}
		twins[ctl], twins[twin] = twin, ctl
		if ctl.Rate > 0 {
			continue // bounded by its rate: nothing to judge
		}
		e := pooled(twin.cell, ctl.cell, ctl.Aggregate)
		e.beaten = ceilingBeatenFor(run, twin.cell, e.summary)
		for _, p := range [][2]*Row{{twin, ctl}, {ctl, twin}} {
			r := p[0]
			r.BoundBy, r.Bound, r.BoundWhy, r.BoundWith = BoundText(e.summary), "", nil, p[1].ID
			judgeBound(r, r.cell, e)
		}
	}
	return twins
}

// pooled is the evidence of a's and b's trials together: summarized under
// agg, judged against the ceiling either cell's summary was judged with.
func pooled(a, b *results.Cell, agg results.Aggregate) evidence {
	trials := append(slices.Clone(a.Trials), b.Trials...)
	s := Summarize(trials, agg)
	ceiling := 0.0
	for _, c := range []*results.Cell{a, b} {
		if cs := c.Summary; ceiling == 0 && cs != nil && cs.CeilingShare > 0 {
			ceiling = cs.RPS / cs.CeilingShare
		}
	}
	JudgeBound(s, ceiling, a.Pinning != "")
	return evidence{trials: trials, targetCPU: s.TargetCPUCores, summary: s}
}
