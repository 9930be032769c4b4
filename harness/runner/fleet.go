package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/merge"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// startLead is how far ahead of now a fleet hands out its start instant:
// time for the harness to reach every generator engine (over SSH too) and
// exec the tool there before the instant passes. A generator whose exec
// comes later starts late, and the trial's skew says so.
const startLead = 2 * time.Second

// scheduled is what a fleet's generators can do beside a Generator's:
// start a run at an instant and say when it really ran.
type scheduled interface {
	RunAt(ctx context.Context, tool loadgen.Tool, s loadgen.Spec, at time.Time) (loadgen.Result, merge.Window, error)
	// Clock reads its machine's clock, where RunAt waits for the instant.
	Clock(ctx context.Context) (time.Time, error)
}

// fleet is the load generator of a run whose cells' load comes from
// several engines (placement.loadgen: [a, b, …]): a generator on each, on
// its own machine's cores. A run of it divides the spec's connections,
// rate and request count among them (merge.Split: the remainder to the
// first), hands each the same start instant, runs them together and
// merges what they measured (merge.Trial): counts summed, latency from
// full histograms or not at all, the rate over the window in which all
// were sending. It probes through the first. The runner holds it as its
// one Generator and reads each run's spread from it (spread).
type fleet struct {
	members []fleetMember
	lead    time.Duration   // how far ahead a run's start instant is; 0: startLead
	started []Started       // what each member runs, once started
	sets    []cpuset.Set    // the cores each member was started on
	tools   []loadgen.Tool  // the tools they were started for
	last    *results.Spread // of the last run
	// behind is the last run's generator that fell behind its share of
	// a rate (a *merge.BehindError), nil when none did: the runner fails
	// a measured trial on it (behindShare); a warm-up is not judged.
	behind error
	clocks []merge.Reading // each member's, read before the last run
	// use is how many members, the first, a run loads from (the cell's
	// loadgens axis value, set by the runner before each cell); 0: all.
	// One member runs alone, as a run of one generator does: no start
	// instant, no merge, its own latency percentiles.
	use int
}

// active are the members the next run loads from: the first use.
func (f *fleet) active() []fleetMember {
	if f.use > 0 && f.use < len(f.members) {
		return f.members[:f.use]
	}
	return f.members
}

// fleetMember is one generator of a fleet, named by its engine: gen and
// at are one generator, seen as each.
type fleetMember struct {
	engine string
	side   *side
	gen    Generator
	at     scheduled
}

// Start starts every member in order, each on as many cores as cores
// holds, the highest of its own machine's (memberCores), and refuses
// members that run different versions of a tool.
func (f *fleet) Start(ctx context.Context, cores cpuset.Set, tools []loadgen.Tool) (Started, error) {
	f.started, f.sets, f.tools = nil, nil, tools
	for _, m := range f.members {
		set, err := memberCores(m.side, len(cores))
		if err != nil {
			return Started{}, m.wrap(err)
		}
		f.sets = append(f.sets, set)
		st, err := m.gen.Start(ctx, set, tools)
		if err != nil {
			return Started{}, m.wrap(err)
		}
		for name, v := range st.Versions {
			if first := f.members[0]; len(f.started) > 0 && f.started[0].Versions[name] != v {
				return Started{}, fmt.Errorf("the load generators on engines %s and %s run different versions of %s (%s and %s): a merged trial would mix them",
					first.engine, m.engine, name, f.started[0].Versions[name], v)
			}
		}
		f.started = append(f.started, st)
	}
	return f.started[0], nil
}

// memberCores are the n highest usable cores of s's machine: where a
// generator runs apart from the target, as matrix.ExpandApart places the
// first.
func memberCores(s *side, n int) (cpuset.Set, error) {
	u := s.usable()
	if n < 1 || n > len(u) {
		return nil, fmt.Errorf("load generator %d cores exceed the %d usable CPUs of its machine", n, len(u))
	}
	return u[len(u)-n:], nil
}

// wrap names the member's engine in err.
func (m fleetMember) wrap(err error) error {
	return fmt.Errorf("load generator on engine %s: %w", m.engine, err)
}

// Pin moves every member to as many cores as cores holds, each the
// highest of its own machine, and returns the first's.
func (f *fleet) Pin(ctx context.Context, cores string) (string, error) {
	set, err := cpuset.Parse(cores)
	if err != nil || len(set) == 0 {
		return "", fmt.Errorf("pin the load generators: cores %q", cores)
	}
	var first string
	for i, m := range f.members {
		want, err := memberCores(m.side, len(set))
		if err != nil {
			return first, m.wrap(err)
		}
		got, err := m.gen.Pin(ctx, want.String())
		if err != nil {
			return first, m.wrap(err)
		}
		if i == 0 {
			first = got
		}
	}
	return first, nil
}

// Probe asks through the first member.
func (f *fleet) Probe(ctx context.Context, target string, ask Ask) (verify.Response, error) {
	return f.members[0].gen.Probe(ctx, target, ask)
}

// Usage is the cores every active member used, summed: the load's whole
// cost (a member the run did not load from is idle, and not counted).
func (f *fleet) Usage(start, end time.Time) (float64, bool) {
	sum, all := 0.0, true
	for _, m := range f.active() {
		cores, ok := m.gen.Usage(start, end)
		sum, all = sum+cores, all && ok
	}
	return sum, all
}

// Alive fails, naming the engine, when any member vanished.
func (f *fleet) Alive(ctx context.Context) error {
	for _, m := range f.members {
		if err := m.gen.Alive(ctx); err != nil {
			return m.wrap(err)
		}
	}
	return nil
}

// Revive starts again, on the cores it was first started on, each member
// whose container vanished or stopped (killed under a trial), so that its
// death fails only the cell it happened in, and returns their engines. A
// member that cannot be started again stays dead, and Alive says so.
func (f *fleet) Revive(ctx context.Context) []string {
	var out []string
	for i, m := range f.members {
		if i >= len(f.sets) || m.gen.Alive(ctx) == nil {
			continue
		}
		_ = m.gen.Close(ctx) // what is left of it: Start makes a new one
		if _, err := m.gen.Start(ctx, f.sets[i], f.tools); err == nil {
			out = append(out, m.engine)
		}
	}
	return out
}

// Close closes every member, even when one fails to.
func (f *fleet) Close(ctx context.Context) error {
	var errs error
	for _, m := range f.members {
		if err := m.gen.Close(ctx); err != nil {
			errs = errors.Join(errs, m.wrap(err))
		}
	}
	return errs
}

// memberRun is what one member's share of a run gave.
type memberRun struct {
	spec loadgen.Spec
	res  loadgen.Result
	w    merge.Window
	err  error
}

// Run runs s on every active member together, each its share, from one
// start instant, and merges their results; one active member runs it
// alone. First it reads every member's clock: one surely further off the
// harness's than merge.ClockTolerance fails the run before any load,
// naming its engine (merge.Clocks). A
// member's failure fails the run, naming its engine, once every member
// has ended (a run cannot be called back from a container); so do
// windows that overlap by less than merge.MinOverlap. A member behind its
// share of a rate is kept in behind, for the runner to judge a trial by.
func (f *fleet) Run(ctx context.Context, tool loadgen.Tool, s loadgen.Spec) (loadgen.Result, error) {
	f.last, f.behind, f.clocks = nil, nil, nil
	members := f.active()
	if len(members) == 1 {
		res, err := members[0].gen.Run(ctx, tool, s)
		if err != nil {
			return res, members[0].wrap(err)
		}
		return res, nil
	}
	specs, err := shareSpecs(s, len(members))
	if err != nil {
		return loadgen.Result{}, err
	}
	lead := f.lead
	if lead == 0 {
		lead = startLead
	}
	if err := f.readClocks(ctx, s, lead); err != nil {
		return loadgen.Result{}, err
	}
	at := time.Now().Add(lead)
	runs := make([]memberRun, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		runs[i].spec = specs[i]
		wg.Go(func() { runs[i].res, runs[i].w, runs[i].err = m.at.RunAt(ctx, tool, specs[i], at) })
	}
	wg.Wait()
	for i, r := range runs {
		if r.err != nil {
			return loadgen.Result{}, members[i].wrap(r.err)
		}
	}
	return f.merge(runs, at)
}

// shareSpecs divides s among n generators: its connections, its rate and
// its request count, each by merge.Split.
func shareSpecs(s loadgen.Spec, n int) ([]loadgen.Spec, error) {
	conns, err := merge.Split(s.Connections, n)
	if err != nil {
		return nil, fmt.Errorf("connections: %w", err)
	}
	out := make([]loadgen.Spec, n)
	for i := range out {
		out[i] = s
		out[i].Connections = conns[i]
	}
	if s.Rate > 0 {
		rates, err := merge.Split(s.Rate, n)
		if err != nil {
			return nil, fmt.Errorf("rate: %w", err)
		}
		for i := range out {
			out[i].Rate = rates[i]
		}
	}
	if s.Requests > 0 {
		reqs, err := merge.Split(int(s.Requests), n)
		if err != nil {
			return nil, fmt.Errorf("requests: %w", err)
		}
		for i := range out {
			out[i].Requests = int64(reqs[i])
		}
	}
	return out, nil
}

// merge makes the runs' one result and keeps their spread.
func (f *fleet) merge(runs []memberRun, at time.Time) (loadgen.Result, error) {
	parts := make([]merge.Part, len(runs))
	for i, r := range runs {
		p, err := partOf(f.members[i].engine, r)
		if err != nil {
			return loadgen.Result{}, f.members[i].wrap(err)
		}
		parts[i] = p
	}
	m, err := merge.Trial(parts)
	if err != nil {
		return loadgen.Result{}, err
	}
	out, err := mergedResult(m, runs)
	if err != nil {
		return loadgen.Result{}, err
	}
	f.last = spreadOf(f, m, runs, at)
	f.behind = merge.Behind(f.paces(runs))
	return out, nil
}

// paces are what each member was asked to hold and sent: a request it
// scheduled and never sent (openloop's unsent) was not offered.
func (f *fleet) paces(runs []memberRun) []merge.Pace {
	out := make([]merge.Pace, len(runs))
	for i, r := range runs {
		sent := r.res.Sent()
		out[i] = merge.Pace{Generator: f.members[i].engine, Rate: r.spec.Rate, Sent: sent.Requests + sent.Errors, Seconds: r.res.Seconds}
	}
	return out
}

// readClocks reads every member's clock at once and fails, naming the
// engine, when one is surely too far off the harness's for a run of s
// with the start instant lead ahead (merge.Clocks).
func (f *fleet) readClocks(ctx context.Context, s loadgen.Spec, lead time.Duration) error {
	members := f.active()
	readings := make([]merge.Reading, len(members))
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			readings[i].Generator, readings[i].Sent = m.engine, time.Now()
			readings[i].Said, errs[i] = m.at.Clock(ctx)
			readings[i].Got = time.Now()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return members[i].wrap(fmt.Errorf("read its clock: %w", err))
		}
	}
	f.clocks = readings
	d := s.Duration
	if d <= 0 {
		d = loadgen.Deadline(s)
	}
	return merge.Clocks(readings, merge.ClockTolerance(d, lead))
}

// partOf is a member's run as merge.Trial takes it. Its window is its
// tool's own timed span from its process's start: the drain and exit that
// follow (the rest of the run's window) send nothing, and counted in they
// would lower every rate below what one generator reports. Its latency is
// the full distribution when its tool exported one (openloop's histogram,
// wrk's through its script).
func partOf(engine string, r memberRun) (merge.Part, error) {
	w := merge.Window{Start: r.w.Start, Stop: r.w.Start.Add(time.Duration(r.res.Seconds * float64(time.Second)))}
	if w.Stop.After(r.w.Stop) {
		w.Stop = r.w.Stop
	}
	p := merge.Part{Generator: engine, Window: w, Good: r.res.Requests, Bytes: r.res.BytesRead, Errors: maps.Clone(r.res.ErrorKinds)}
	if p.Errors == nil {
		p.Errors = map[string]int64{}
	}
	kinds := int64(0)
	for _, n := range p.Errors {
		kinds += n
	}
	if rest := r.res.Errors - kinds; rest > 0 {
		p.Errors["others"] += rest // counted, not classified by the tool
	}
	if ol := r.res.OpenLoop; ol != nil && ol.Histogram != "" {
		h, err := results.DecodeHistogram(ol.Histogram)
		if err != nil {
			return p, fmt.Errorf("its latency histogram: %w", err)
		}
		p.Latency = h
	} else if r.res.Distribution != nil {
		p.Latency = r.res.Distribution
	}
	return p, nil
}
