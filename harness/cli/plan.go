package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/runner"
)

type planOpts struct {
	mf         matrixFlags
	ef         engineFlags
	sequential bool
	format     string
}

func (o *planOpts) register(fs *flag.FlagSet) {
	o.mf.register(fs)
	o.ef.register(fs)
	fs.BoolVar(&o.sequential, "sequential", false, "estimate for trials run cell by cell")
	fs.StringVar(&o.format, "format", "text", "`text|json`: json prints the cells, their cores and skips, and the estimates")
}

// planCmd is the plan command: it reads the matrix and the engine flags,
// and prints the plan.Plan they make, as text or JSON.
func planCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var o planOpts
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	o.register(fs)
	if _, err := parseFlags(fs, args, 0, 0, stdout, stderr); err != nil {
		return err
	}
	if o.format != "text" && o.format != "json" {
		return usageErr("plan: --format must be text or json, got %q", o.format)
	}
	m, sel, err := o.mf.load()
	if err != nil {
		return err
	}
	place, err := o.ef.placed(m)
	if err != nil {
		return err
	}
	opt := plan.Options{Online: cpuset.Range(0, runtime.NumCPU()), Book: buildtime.Open(buildtime.Path()), Sequential: o.sequential}
	if mc := place.machines; mc != nil {
		opt.Apart, opt.TargetReserve, opt.LoadgenReserve = true, mc.Target.Reserve, mc.Loadgen.Reserve
	}
	p := plan.New(m, sel, opt)
	if o.format == "json" {
		return writePlanJSON(stdout, p)
	}
	writePlanEngines(stdout, place.machines, p.CPUs)
	writePlanCells(stdout, p, opt.Online, m.Load.LoadgenCPUs)
	writePlanTargets(stdout, p)
	writePlanTotals(stdout, p)
	return nil
}

// writePlanEngines names the engines of a run on several machines (ms),
// which plan does not ask: it assumes each has this one's cpus cores.
func writePlanEngines(stdout io.Writer, ms *runner.Machines, cpus int) {
	if ms == nil {
		return
	}
	gens := fmt.Sprintf("the load generator on %s (%s)", ms.Loadgen.Name, redact.URL(ms.Loadgen.Host))
	names := map[string]bool{ms.Target.Name: true, ms.Loadgen.Name: true}
	for _, g := range ms.More {
		gens += fmt.Sprintf(", one on %s (%s)", g.Name, redact.URL(g.Host))
		names[g.Name] = true
	}
	fmt.Fprintf(stdout, "%d engines: targets on %s (%s, reached at %s), %s; plan asks no engine, so the cores below assume each machine has this one's %d CPUs\n\n",
		len(names), ms.Target.Name, redact.URL(ms.Target.Host), ms.Target.Address, gens, cpus)
}

// writePlanCells lists each cell with its cores or why it is skipped,
// then the placements a machine with too few cores made, then what the
// profile and --only leave out: a line per reason, not per target.
func writePlanCells(stdout io.Writer, p *plan.Plan, online cpuset.Set, lgCPUs int) {
	for _, c := range p.Cells {
		switch {
		case c.Skip != "":
			fmt.Fprintf(stdout, "%-40s skip: %s\n", c.ID(), c.Skip)
		case c.Key.Axis(axis.Schedule) == axis.ScheduleDuet:
			fmt.Fprintf(stdout, "%-40s %s\n", c.ID(), duetPlace(online, c, lgCPUs))
		default:
			fmt.Fprintf(stdout, "%-40s target cpus %s, load generator cpus %s%s\n", c.ID(), c.CPUSet, c.LoadgenSet, ownCores(c))
		}
	}
	for _, pl := range p.Placements {
		fmt.Fprintf(stdout, "placement of %d cell(s): %s\n", pl.Cells, pl.Note)
	}
	for _, l := range p.LeftOut {
		fmt.Fprintln(stdout, l)
	}
}

// duetPlace is where a cell of the duet schedule runs: beside the cell
// it is compared with, on online's cores as matrix.DuetSeats places
// them (a cell compared with nothing runs alone, on its own cores).
func duetPlace(online cpuset.Set, c matrix.Cell, lgCPUs int) string {
	s, how, ok := matrix.DuetSeats(online, c, lgCPUs)
	if !ok {
		return fmt.Sprintf("in a duet if compared with a cell, else alone: target cpus %s, load generator cpus %s (two of its targets do not fit, so a duet runs its sides one after the other)", c.CPUSet, c.LoadgenSet)
	}
	return fmt.Sprintf("in a duet with the cell it is compared with: target cpus %s or %s, load generator cpus %s or %s, swapped every round (%s)",
		s[0].Target, s[1].Target, s[0].Loadgen, s[1].Loadgen, how)
}

// writePlanTargets lists per target its cells and the base images it
// needs that have no local stand-in: without the engine having them or a
// registry to pull them from, run will skip its cells (plan asks no
// engine).
func writePlanTargets(stdout io.Writer, p *plan.Plan) {
	fmt.Fprintln(stdout, "\ntargets:")
	for _, t := range p.Targets {
		line := fmt.Sprintf("  %-24s %3d cell(s), %d image(s) to build", t.Name, t.Cells, t.Images)
		if len(t.Unpulled) > 0 {
			line += "; skipped unless the engine has or can pull " + strings.Join(t.Unpulled, ", ") + " (no local stand-in)"
		}
		fmt.Fprintln(stdout, line)
		for _, u := range t.Undeclared {
			fmt.Fprintf(stdout, "  %-24s its Dockerfile names %s in FROM, not under images: skipped unless the engine has it or can pull it; %s\n",
				"", u.Image, u.Fix)
		}
	}
}

// writePlanTotals says what the run builds and how long building and
// measuring take.
func writePlanTotals(stdout io.Writer, p *plan.Plan) {
	source := "learned from this machine's builds"
	if !p.BuildTimeLearned {
		source = "partly documented defaults"
	}
	fmt.Fprintf(stdout, "\nimages: %d base image key(s) (%s) and %d target image(s) plus the load generator; "+
		"on an empty engine without a registry, building them takes about %s (%s; cached images are not rebuilt, nor those of targets skipped for want of a base image)\n",
		len(p.BaseImages), strings.Join(p.BaseImages, ", "), len(p.Builds), p.BuildTime.Round(time.Minute), source)
	how := p.Load.Duration.String()
	if p.Requests != nil {
		how = fmt.Sprintf("%v requests (timed at a guessed %d rps)", p.Requests, plan.GuessedRPS)
	}
	fmt.Fprintf(stdout, "%d cells (%d to run, %d skipped on %d CPUs, this machine's count: run asks the engine); %d trial(s) of %s after %s warm-up; estimated %s of measuring plus image builds\n",
		len(p.Cells), p.Runnable, len(p.Cells)-p.Runnable, p.CPUs, p.Load.Trials, how, p.Load.Warmup, p.Measure.Round(time.Second))
}

// planCell is one cell of plan --format json.
type planCell struct {
	ID          string `json:"id"`
	Target      string `json:"target"`
	Scenario    string `json:"scenario"`
	CPUs        int    `json:"cpus"`
	Connections int    `json:"connections"`
	Close       bool   `json:"connection_close,omitempty"`
	Rate        int    `json:"rate,omitempty"`
	Generator   string `json:"generator"`
	CPUSet      string `json:"cpuset"`
	LoadgenSet  string `json:"loadgen_cpuset"`
	Skip        string `json:"skip,omitempty"`
	// ServiceSets are the cores of each service with cores of its own;
	// Placement what a machine with too few did instead.
	ServiceSets map[string]string `json:"service_cpusets,omitempty"`
	Placement   string            `json:"placement,omitempty"`
}

// writePlanJSON writes plan's JSON: every cell, how many run, and the
// estimated measuring and build times.
func writePlanJSON(w io.Writer, p *plan.Plan) error {
	out := struct {
		Cells            []planCell `json:"cells"`
		Runnable         int        `json:"runnable"`
		MeasureSeconds   float64    `json:"measure_seconds_estimate"`
		BuildSeconds     float64    `json:"build_seconds_estimate"`
		BuildTimeLearned bool       `json:"build_time_learned"`
	}{Cells: []planCell{}, Runnable: p.Runnable, MeasureSeconds: p.Measure.Seconds(), BuildSeconds: p.BuildTime.Seconds(), BuildTimeLearned: p.BuildTimeLearned}
	for _, c := range p.Cells {
		out.Cells = append(out.Cells, planCell{ID: c.ID(), Target: c.Target, Scenario: c.Scenario, CPUs: c.CPUs, Connections: c.Connections,
			Close: c.Close, Rate: c.Rate, Generator: c.Generator, CPUSet: c.CPUSet.String(), LoadgenSet: c.LoadgenSet.String(), Skip: c.Skip,
			ServiceSets: serviceSets(c), Placement: c.Placement})
	}
	return writeJSON(w, out)
}

// serviceSets are the cores of c's services with cores of their own, as
// text; nil for none.
func serviceSets(c matrix.Cell) map[string]string {
	if len(c.Own) == 0 {
		return nil
	}
	out := map[string]string{}
	for name, set := range c.Own {
		out[name] = set.String()
	}
	return out
}

// ownCores words the cores of c's services with cores of their own:
// ", db cpus 1".
func ownCores(c matrix.Cell) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(c.Own)) {
		fmt.Fprintf(&b, ", %s cpus %s", name, c.Own[name])
	}
	return b.String()
}
