package analysis

import (
	"github.com/webbench/webbench/harness/results"

	"slices"

	"github.com/webbench/webbench/harness/stats"
)

// GeneratorStat is what one load generator did in a run: its version, its
// ceilings, and how much load it drew from a core of its own: good
// answers per second of the generator's CPU, over the trials of its ok
// cells in which it used at least GeneratorBoundShare of its cores (in the
// others a slower server left it idle part of the time, and the figure
// would measure the server).
type GeneratorStat struct {
	Name     string            `json:"name"`
	Version  string            `json:"version,omitempty"`
	Cells    int               `json:"cells"`
	PerCPU   stats.Summary     `json:"rps_per_cpu_second"` // over trials
	Ceilings []results.Ceiling `json:"ceilings,omitempty"`
	NoCPU    int               `json:"trials_without_cpu,omitempty"`
}

// Generators lists the run's load generators in the order their cells
// first appear, with what each drew per CPU-second. A run that used only
// the default generator, as every run before the generator axis did, lists
// it too.
func Generators(run *results.Run) []GeneratorStat {
	var out []GeneratorStat
	index := map[string]int{}
	perCPU := map[string][]float64{}
	for _, c := range run.Cells {
		if c.Status == results.Skipped {
			continue
		}
		name := c.GeneratorName()
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, GeneratorStat{Name: name})
		}
		if c.Generator != nil && c.Generator.Version != "" {
			out[i].Version = c.Generator.Version
		}
		if c.Status != results.OK {
			continue
		}
		out[i].Cells++
		for _, t := range c.Trials {
			switch {
			case t.LoadgenCPUCores <= 0:
				out[i].NoCPU++
			case t.GeneratorBound:
				perCPU[name] = append(perCPU[name], t.RPS/t.LoadgenCPUCores)
			}
		}
	}
	for i := range out {
		out[i].PerCPU = stats.Describe(perCPU[out[i].Name])
		out[i].Ceilings = slices.DeleteFunc(slices.Clone(run.Ceilings), func(c results.Ceiling) bool { return c.GeneratorName() != out[i].Name })
	}
	return out
}
