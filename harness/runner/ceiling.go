package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// ceilingPort is where the fixed-response server listens.
const ceilingPort = 8080

type ceilingKey struct {
	gen         string
	cpus, conns int
	close       bool
	pinning     string
	protocol    string
	pipeline    int
	loadgens    int // the loadgens axis's k: a cell is judged against its own generators' ceiling
}

// ceilings are the load generator's ceilings a run measures, once per
// ceilingKey its cells use, against the fixed-response server on the
// targets' engine (the stage's), and keeps for its cells to be judged by;
// what it measured goes to the ledger as it goes.
type ceilings struct {
	rps      map[ceilingKey]float64 // the ceiling RPS of each key measured
	m        *matrix.Matrix
	skip     bool // Options.NoCeiling: no ceiling is measured
	sides    *sides
	gen      *startedGenerator
	stage    *stage
	ledger   *ledger
	log      io.Writer
	progress Progress
	spec     func(c matrix.Cell, url string, expect int) loadgen.Spec // the load of a cell
	split    func(c matrix.Cell) []results.Share                      // how a cell's load is divided among generators
}

func keyOf(c matrix.Cell) ceilingKey {
	return ceilingKey{c.Generator, c.CPUs, c.Connections, c.Close, c.Pinning, c.Protocol, c.Pipeline, c.Loadgens}
}

// measure measures, once per ceilingKey the run's cells use, what the
// load generator can draw from the fixed-response server in its image,
// running on the target's cores and loaded exactly like a target: the
// ceiling no target can pass here. It returns an error only when the run
// is interrupted; a ceiling that cannot be measured says why.
func (cs *ceilings) measure(ctx context.Context, vs []*visit) error {
	cs.rps = map[ceilingKey]float64{}
	if cs.skip {
		return nil
	}
	seen, top := map[ceilingKey]bool{}, map[ceilingKey]int{}
	for _, v := range vs {
		top[keyOf(v.c)] = max(top[keyOf(v.c)], v.c.Rate)
	}
	for _, ce := range cs.ledger.out.Ceilings { // measured before a resume
		k := ceilingKey{ce.GeneratorName(), ce.CPUs, ce.Connections, ce.Close, ce.Pinning, ce.Protocol, ce.Pipeline, ce.Loadgens}
		cs.rps[k], seen[k] = ce.RPS, true
	}
	for _, v := range vs {
		k := keyOf(v.c)
		if seen[k] || v.done {
			continue
		}
		seen[k] = true
		cs.progress.Phase(v.c, "load generator ceiling")
		c := v.c
		c.Rate = top[k]
		ce, err := cs.ceiling(ctx, c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			ce.Error = err.Error()
			fmt.Fprintf(cs.log, "warning: %s ceiling on %d core(s), c%d%s: %v\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), err)
		} else if ce.AtLeast > 0 {
			fmt.Fprintf(cs.log, "%s ceiling on %d core(s), c%d%s: above %s rps (it sustained the run's highest rate)\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), numfmt.Count(int64(ce.AtLeast)))
		} else {
			cs.rps[k] = ce.RPS
			fmt.Fprintf(cs.log, "%s ceiling on %d core(s), c%d%s: %s rps\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), numfmt.Sig(ce.RPS))
		}
		cs.ledger.out.Ceilings = append(cs.ledger.out.Ceilings, ce)
		cs.ledger.save()
	}
	return nil
}

// estimate is about how long measuring the ceilings of cells takes: one
// visit per ceilingKey, warmed up and measured like a cell run
// sequentially.
func (cs *ceilings) estimate(cells []matrix.Cell) time.Duration {
	if cs.skip {
		return 0
	}
	keys := map[ceilingKey]bool{}
	var one []matrix.Cell
	for _, c := range cells {
		if k := keyOf(c); c.Skip == "" && !keys[k] {
			keys[k] = true
			one = append(one, c)
		}
	}
	return plan.Estimate(cs.m, one, plan.VisitOverhead, plan.GuessedRPS, false)
}

// loadgensText names a ceiling's generator engines when the loadgens
// axis set them: ", 2 generator engines".
func loadgensText(k int) string {
	switch {
	case k == 1:
		return ", 1 generator engine"
	case k > 1:
		return fmt.Sprintf(", %d generator engines", k)
	}
	return ""
}

func closeText(close bool) string {
	if close {
		return " without keep-alive"
	}
	return ""
}

// ceiling measures the load generator's ceiling for c's key: the
// fixed-response server started on c's target cores and loaded as c's
// target would be, the median of the matrix's trials.
func (cs *ceilings) ceiling(ctx context.Context, c matrix.Cell) (results.Ceiling, error) {
	ce := results.Ceiling{CPUs: c.CPUs, CPUSet: c.CPUSet.String(), Connections: c.Connections, Close: c.Close,
		Generator: c.Generator, NetworkMode: results.Network(cs.stage.network.mode), Pinning: c.Pinning, Protocol: c.Protocol, Pipeline: c.Pipeline, Loadgens: c.Loadgens}
	cs.gen.use(len(cs.sides.gensOf(c)))
	if _, err := cs.gen.Pin(ctx, c.LoadgenSet.String()); err != nil {
		return ce, err
	}
	// The ceiling is load as fast as the generator can: the cell's, at no
	// rate. A generator that only keeps a schedule (openloop) is asked the
	// highest rate of the run's cells instead: what it achieves below that
	// rate is its ceiling, and where it sustains it, its ceiling is above
	// every rate the run asks (AtLeast).
	rate := c.Rate
	c.Rate = 0
	tool := loadgen.Tools[c.Generator]
	if why := tool.Unsupported(cs.spec(c, "", 200)); why != "" {
		if c.Rate = rate; rate == 0 || tool.Unsupported(cs.spec(c, "", 200)) != "" {
			return ce, fmt.Errorf("a ceiling is load as fast as the generator can, and %s", why)
		}
		ce.Rate = rate
	}
	ce.Split = cs.split(c)
	s, url, err := cs.stage.startFixed(ctx, c.CPUSet, cellid.Proto(c.Protocol), cs.m.Load.ReadyTimeout)
	defer cs.stage.remove(ctx, s)
	if err != nil {
		return ce, err
	}
	spec := cs.spec(c, url, 200)
	// The fixed-response server answers every request alike, whatever it
	// asks: one ceiling stands for the key's every scenario, so it is
	// measured without any scenario's headers, whichever cell came first.
	spec.Headers = nil
	if err := warm(ctx, cs.gen, tool, spec, cs.m.Load.Warmup); err != nil {
		return ce, err
	}
	var cpu []float64
	for range cs.m.Load.Trials {
		start := time.Now()
		res, err := cs.gen.Run(ctx, tool, spec)
		if err != nil {
			return ce, err
		}
		res = res.Sent() // a send never made is the generator's limit, not the server failing
		if problem, _ := res.Judge(loadgen.Judge{MaxErrorRate: cs.m.Load.MaxErrorRate}); problem != "" {
			return ce, fmt.Errorf("the fixed-response server failed: %s", problem)
		}
		ce.TrialRPS = append(ce.TrialRPS, roundTo(res.RPS, 1))
		if cores, ok := cs.gen.Usage(cs.gen.loadStart(start), time.Now()); ok {
			cpu = append(cpu, cores)
		}
	}
	ce.RPS = roundTo(stats.Describe(ce.TrialRPS).Median, 1)
	if ce.Rate > 0 && analysis.Sustains(int64(ce.RPS*1000), 1000, ce.Rate) {
		ce.AtLeast = ce.Rate
	}
	if len(cpu) > 0 {
		ce.LoadgenCPU = roundTo(stats.Describe(cpu).Median, 3)
		if ce.LoadgenCPU > 0 {
			ce.RPSPerCPU = roundTo(ce.RPS/ce.LoadgenCPU, 0)
		}
	}
	return ce, nil
}

// fixedEnv is the fixed-response server's environment: its port, the
// protocol it serves and, over TLS, the run's certificate.
func fixedEnv(protocol string) []string {
	env := []string{fmt.Sprintf("PORT=%d", ceilingPort), "PROTOCOL=" + protocol}
	if cellid.TLS(protocol) {
		env = append(env, "TLS_CERT_FILE="+certPath, "TLS_KEY_FILE="+keyPath)
	}
	return env
}

// reach checks, before any load, that the load generator on its engine
// gets a correct answer from a server on the targets' machine at the
// targets' address, and reads that machine's processor and open-files
// limit. Its error names both ends.
func (r *runner) reach(ctx context.Context) error {
	tg, lg := r.sides.target, r.sides.load
	s, url, err := r.stage.startFixed(ctx, tg.usable()[:1], cellid.ProtoHTTP1, r.opt.Matrix.Load.ReadyTimeout)
	defer r.stage.remove(ctx, s)
	if err == nil {
		lg, err = r.gen.reachedBy(ctx, url, r.opt.Matrix.Load.Timeout, r.sides.load)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the load generator on engine %s (%s) cannot reach the targets' machine, engine %s (%s), at %s: %v "+
			"(check engines.%s.address and that the targets' machine accepts TCP from the load generator's on the targets' ports)",
			lg.name, redact.URL(lg.host), tg.name, redact.URL(tg.host), url, err, tg.name)
	}
	id := s.members()[0].id
	r.ledger.out.Environment.CPUModel = cpuModelIn(ctx, tg.eng.Containers, id)
	var names []string
	for i, g := range r.sides.gens {
		if names = append(names, g.name); g == tg {
			r.ledger.out.Environment.Machines[i+1].CPUModel = r.ledger.out.Environment.CPUModel
		}
	}
	r.ledger.out.Environment.Machines[0].CPUModel = r.ledger.out.Environment.CPUModel
	r.gen.MaxNoFile = hardNoFile(ctx, tg.eng.Containers, id)
	fmt.Fprintf(r.opt.Log, "engine %s reaches the targets' machine (engine %s) at %s\n", strings.Join(names, ", "), tg.name, tg.address)
	return nil
}

// reachedBy asks the fixed-response server at url for its answer from
// every load generator in turn, each probe waiting at most timeout; when
// one does not get it, it returns that generator's side (first, the load
// generator's, for one generator) and why.
func (g *startedGenerator) reachedBy(ctx context.Context, url string, timeout time.Duration, first *side) (*side, error) {
	probe := func(one Generator) error {
		resp, err := one.Probe(ctx, url, Ask{Kind: probeHTTP, Timeout: timeout, Protocol: cellid.ProtoHTTP1})
		if err == nil && resp.Status != 200 {
			err = fmt.Errorf("answered status %d, not the fixed-response server's 200: is another server listening on port %d of that machine?", resp.Status, ceilingPort)
		}
		return err
	}
	f, ok := g.Generator.(*fleet)
	if !ok {
		return first, probe(g.Generator)
	}
	for _, m := range f.members {
		if err := probe(m.gen); err != nil {
			return m.side, err
		}
	}
	return first, nil
}
