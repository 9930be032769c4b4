package results

import (
	"fmt"

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
)

// ServerBoundShare is the share of its cores a target must use for its
// cell to be bounded by them; under WaitingShare, with the generator below
// GeneratorBoundShare, the server waited. Between the two the CPU figures
// do not tell, and the cell says so, with them.
const (
	ServerBoundShare = 0.90
	WaitingShare     = 0.50
)

// judgeBound says which of the three bounded r, with the figures: the
// generator (†, its ceiling or CPU), else the server's cores (its CPU at
// ServerBoundShare of them or more), else neither — the server waited, and
// the number measures its waiting, not its speed. Fixed-rate cells are
// bounded by their rate: no judgement.
func judgeBound(r *Row, c *Cell) {
	if r.Rate > 0 || len(c.Trials) == 0 {
		return
	}
	var lg []float64
	for _, t := range c.Trials {
		lg = append(lg, t.LoadgenCPUCores)
	}
	lgCores := 0
	if set, err := cpuset.Parse(c.LoadgenCPUSet); err == nil {
		lgCores = len(set)
	}
	lgCPU := stats.Describe(lg).Median
	server := 0.0
	if r.CPUs > 0 {
		server = r.TargetCPU / float64(r.CPUs)
	}
	if r.Pinning != "" { // the generator shares the target's cores
		if total := r.TargetCPU + lgCPU; total > 0 {
			r.Bound = BoundShared
			r.BoundWhy = fmt.Sprintf("the generator took %.0f%% of the CPU the two used (server %.2f, generator %.2f cores, on %s)",
				100*lgCPU/total, r.TargetCPU, lgCPU, c.CPUSet)
		}
		return
	}
	switch {
	case len(r.BoundBy) > 0:
		r.Bound, r.BoundWhy = BoundGenerator, fmt.Sprintf("server at %.0f%% of its %d core(s)", 100*server, r.CPUs)
	case server >= ServerBoundShare:
		r.Bound, r.BoundWhy = BoundServer, fmt.Sprintf("server at %.0f%% of its %d core(s)", 100*server, r.CPUs)
	case r.TargetCPU == 0 || lgCores == 0:
		return // CPU not sampled (a trial shorter than two samples): nothing to tell
	default:
		lgShare := lgCPU / float64(lgCores)
		r.BoundWhy = fmt.Sprintf("server at %.0f%% of its %d core(s), load generator at %.0f%% of its %d", 100*server, r.CPUs, 100*lgShare, lgCores)
		r.Bound = BoundUnclear
		if server < WaitingShare && lgShare < GeneratorBoundShare {
			r.Bound = BoundWaiting
		}
	}
}
