package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/results"
)

// MoreEngine is a further load generator engine of a run whose cells'
// load comes from several (Machines.More): the engine, none when it is
// the targets' own, and how an image reaches it from the targets' engine
// (nil: never copied).
type MoreEngine struct {
	Engine Engine
	Copy   func(ctx context.Context, ref string) (bool, error)
}

// placeSides makes a run's sides from its engines: one side on one
// engine; on several machines one per engine, where a load generator
// placed on the targets' engine shares the targets' side. copies is
// false when no image is to be copied between the targets' engine and
// the load generator's (one engine, or the generator on the targets'),
// so that opt.Copy is not to be used.
func placeSides(eng Engine, opt Options) (ss sides, copies bool) {
	ss.target = &side{eng: eng, reserve: opt.Reserve}
	ss.load = ss.target
	ms := opt.Machines
	if ms == nil || opt.LoadgenEngine.none() && len(ms.More) == 0 {
		ss.gens = []*side{ss.load} // one engine: nothing to copy from
		return ss, false
	}
	copies = true
	ss.machines = ms
	ss.target = sideOf(eng, ms.Target)
	ss.load = ss.target
	if !opt.LoadgenEngine.none() && ms.Loadgen.Name != ms.Target.Name {
		ss.load = sideOf(opt.LoadgenEngine, ms.Loadgen)
	} else {
		copies = false
	}
	ss.gens = []*side{ss.load}
	for i, spec := range ms.More {
		s := ss.target
		if i < len(opt.More) && !opt.More[i].Engine.none() && spec.Name != ms.Target.Name {
			s = sideOf(opt.More[i].Engine, spec)
			s.copyIn = opt.More[i].Copy
		}
		ss.gens = append(ss.gens, s)
	}
	return ss, copies
}

func sideOf(eng Engine, spec matrix.EngineSpec) *side {
	return &side{eng: eng, name: spec.Name, host: spec.Host, address: spec.Address, reserve: spec.Reserve}
}

// several says whether the run has several load generators (a cell may
// use fewer: gensOf).
func (ss *sides) several() bool { return len(ss.gens) > 1 }

// gensOf are the generators c's load comes from: the first c.Loadgens of
// the run's (the loadgens axis), or all of them when the axis is not set.
func (ss *sides) gensOf(c matrix.Cell) []*side {
	if k := c.Loadgens; k > 0 && k < len(ss.gens) {
		return ss.gens[:k]
	}
	return ss.gens
}

// use makes the run's fleet load the next runs from its first n
// generators alone (a cell's, sides.gensOf); nothing for one generator.
func (g *startedGenerator) use(n int) {
	if f, ok := g.Generator.(*fleet); ok {
		f.use = n
	}
}

// spreadCells skips, naming why, the cells whose load cannot be divided
// among the generators (fewer connections than generators, a share the
// tool cannot hold) or whose generator on the targets' machine would share
// the target's cores, and adds every other generator's cores to its
// side's, to be locked.
func (r *runner) spreadCells(cells []matrix.Cell) {
	if !r.sides.several() {
		return
	}
	for i, c := range cells {
		if c.Skip != "" {
			continue
		}
		if why := r.unspread(c); why != "" {
			cells[i].Skip = why
			continue
		}
		for _, g := range r.sides.gensOf(c)[1:] {
			set, _ := memberCores(g, len(c.LoadgenSet))
			g.cores = cpuset.Union(g.cores, set)
		}
	}
}

// unspread says why c's load cannot come from the run's generators, ""
// when it can.
func (r *runner) unspread(c matrix.Cell) string {
	tool := loadgen.Tools[c.Generator]
	gens := r.sides.gensOf(c)
	specs, err := shareSpecs(plan.Spec(r.opt.Matrix, c, "", 200), len(gens))
	if err != nil {
		return fmt.Sprintf("its load cannot be divided among %d load generators: %v", len(gens), err)
	}
	for i, g := range gens {
		set, err := memberCores(g, len(c.LoadgenSet))
		switch {
		case err != nil:
			return fmt.Sprintf("the load generator on engine %s: %v", g.name, err)
		case g == r.sides.target && cpuset.Overlaps(set, c.TargetCores()):
			return fmt.Sprintf("the load generator on engine %s, the targets' own, would share the target's cores (%s and %s)", g.name, set, c.TargetCores())
		}
		if why := tool.Unsupported(specs[i]); why != "" {
			return fmt.Sprintf("the share of the load generator on engine %s: %s", g.name, why)
		}
	}
	return ""
}

// loadGenerator is the run's load generator: a container on the load
// generator's engine, or a fleet of one on each generator engine.
func (r *runner) loadGenerator() Generator {
	if !r.sides.several() {
		return r.containerGenerator(r.sides.load)
	}
	f := &fleet{}
	for _, s := range r.sides.gens {
		g := r.containerGenerator(s)
		f.members = append(f.members, fleetMember{engine: s.name, side: s, gen: g, at: g})
	}
	return f
}

// models records in ms, the run's machines, the processor of each load
// generator machine that is not the targets' (reach records that one).
func (g *startedGenerator) models(ms []results.Machine) {
	if len(ms) < 2 {
		return
	}
	f, ok := g.Generator.(*fleet)
	if !ok {
		ms[1].CPUModel = g.CPUModel
		return
	}
	for i, st := range f.started {
		if i+1 < len(ms) && st.CPUModel != "" {
			ms[i+1].CPUModel = st.CPUModel
		}
	}
}

// loadStart is when the load of the run that began at start really
// began: a fleet's start instant, later than the call by startLead,
// whose wait must count in no CPU figure.
func (g *startedGenerator) loadStart(start time.Time) time.Time {
	if f, ok := g.Generator.(*fleet); ok && f.last != nil && f.last.StartAt.After(start) {
		return f.last.StartAt
	}
	return start
}

// splitOf is how c's load is divided among its generators (gensOf), nil
// when the run has one generator. A cell of a run of several that the
// loadgens axis gives one has a split of one, which names its engine.
func (r *runner) splitOf(c matrix.Cell) []results.Share {
	if !r.sides.several() {
		return nil
	}
	gens := r.sides.gensOf(c)
	specs, err := shareSpecs(plan.Spec(r.opt.Matrix, c, "", 200), len(gens))
	if err != nil {
		return nil // spreadCells skipped the cell
	}
	out := make([]results.Share, len(specs))
	for i, g := range gens {
		set, _ := memberCores(g, len(c.LoadgenSet))
		out[i] = results.Share{Engine: g.name, CPUSet: set.String(), Connections: specs[i].Connections, Rate: specs[i].Rate, Requests: specs[i].Requests}
	}
	return out
}

// spread records in tr how the fleet's last run went, each generator's
// CPU between start and end included, and makes the trial generator-bound
// when any generator is (its CPU at analysis.GeneratorBoundShare of its
// own cores, cpus, pinned apart). It returns the trial's warnings;
// nothing for one generator.
func (g *startedGenerator) spread(tr *results.Trial, tool string, start, end time.Time, pinned bool, cpus int) []string {
	f, ok := g.Generator.(*fleet)
	if !ok || f.last == nil {
		return nil
	}
	sp := f.last
	f.last = nil
	tr.GeneratorBound = false
	members := f.active()
	for i, m := range members {
		cores, ok := m.gen.Usage(start, end)
		one := &sp.Generators[i]
		one.LoadgenCPUCores = roundTo(cores, 3)
		one.GeneratorBound = pinned && ok && cores >= analysis.GeneratorBoundShare*float64(cpus)
		tr.GeneratorBound = tr.GeneratorBound || one.GeneratorBound
	}
	tr.Spread = sp
	if len(sp.NoLatency) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("no latency percentiles: the load came from %d generators, and %s exported no full distribution of its latencies (on engine %s); percentiles of several generators are merged from full distributions, never averaged",
		len(members), tool, strings.Join(sp.NoLatency, ", "))}
}

// behindShare is the generator of the fleet's last run that fell behind
// its share of a rate (a *merge.BehindError), nil when none did or the
// load has one generator.
func (g *startedGenerator) behindShare() error {
	f, ok := g.Generator.(*fleet)
	if !ok {
		return nil
	}
	err := f.behind
	f.behind = nil
	return err
}

// revive starts again the generators of several that died
// (fleet.Revive) and returns their engines; nothing for one generator,
// whose death stops the run (infraGone).
func (g *startedGenerator) revive(ctx context.Context) []string {
	f, ok := g.Generator.(*fleet)
	if !ok {
		return nil
	}
	return f.Revive(ctx)
}
