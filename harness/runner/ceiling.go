package runner

import (
	"context"
	"fmt"
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

func keyOf(c matrix.Cell) ceilingKey {
	return ceilingKey{c.Generator, c.CPUs, c.Connections, c.Close, c.Pinning, c.Protocol, c.Pipeline, c.Loadgens}
}

// measureCeilings measures, once per (cores, connections, generator
// engines) the run's cells use, what the load generator can draw from the
// fixed-response server in its image, running on the target's cores and
// loaded exactly like a target: the ceiling no target can pass here. It returns an error only
// when the run is interrupted; a ceiling that cannot be measured says why.
func (r *runner) measureCeilings(ctx context.Context, vs []*visit) error {
	r.state.ceilings = map[ceilingKey]float64{}
	if r.opt.NoCeiling {
		return nil
	}
	seen, top := map[ceilingKey]bool{}, map[ceilingKey]int{}
	for _, v := range vs {
		top[keyOf(v.c)] = max(top[keyOf(v.c)], v.c.Rate)
	}
	for _, ce := range r.ledger.out.Ceilings { // measured before a resume
		k := ceilingKey{ce.GeneratorName(), ce.CPUs, ce.Connections, ce.Close, ce.Pinning, ce.Protocol, ce.Pipeline, ce.Loadgens}
		r.state.ceilings[k], seen[k] = ce.RPS, true
	}
	for _, v := range vs {
		k := keyOf(v.c)
		if seen[k] || v.done {
			continue
		}
		seen[k] = true
		r.opt.Progress.Phase(v.c, "load generator ceiling")
		c := v.c
		c.Rate = top[k]
		ce, err := r.ceiling(ctx, c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			ce.Error = err.Error()
			fmt.Fprintf(r.opt.Log, "warning: %s ceiling on %d core(s), c%d%s: %v\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), err)
		} else if ce.AtLeast > 0 {
			fmt.Fprintf(r.opt.Log, "%s ceiling on %d core(s), c%d%s: above %s rps (it sustained the run's highest rate)\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), numfmt.Count(int64(ce.AtLeast)))
		} else {
			r.state.ceilings[k] = ce.RPS
			fmt.Fprintf(r.opt.Log, "%s ceiling on %d core(s), c%d%s: %s rps\n", k.gen, k.cpus, k.conns, closeText(k.close)+loadgensText(k.loadgens), numfmt.Sig(ce.RPS))
		}
		r.ledger.out.Ceilings = append(r.ledger.out.Ceilings, ce)
		r.ledger.save()
	}
	return nil
}

// ceilingEstimate is about how long measuring the ceilings of cells takes:
// one visit per (cores, connections, keep-alive), warmed up and measured
// like a cell run sequentially.
func (r *runner) ceilingEstimate(cells []matrix.Cell) time.Duration {
	if r.opt.NoCeiling {
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
	return plan.Estimate(r.opt.Matrix, one, plan.VisitOverhead, plan.GuessedRPS, false)
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

func (r *runner) ceiling(ctx context.Context, c matrix.Cell) (results.Ceiling, error) {
	ce := results.Ceiling{CPUs: c.CPUs, CPUSet: c.CPUSet.String(), Connections: c.Connections, Close: c.Close,
		Generator: c.Generator, NetworkMode: results.Network(r.stage.network.mode), Pinning: c.Pinning, Protocol: c.Protocol, Pipeline: c.Pipeline, Loadgens: c.Loadgens}
	r.gen.use(len(r.sides.gensOf(c)))
	if _, err := r.gen.Pin(ctx, c.LoadgenSet.String()); err != nil {
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
	if why := tool.Unsupported(r.spec(c, "", 200)); why != "" {
		if c.Rate = rate; rate == 0 || tool.Unsupported(r.spec(c, "", 200)) != "" {
			return ce, fmt.Errorf("a ceiling is load as fast as the generator can, and %s", why)
		}
		ce.Rate = rate
	}
	ce.Split = r.splitOf(c)
	s, url, err := r.stage.startFixed(ctx, c.CPUSet, cellid.Proto(c.Protocol), r.opt.Matrix.Load.ReadyTimeout)
	defer r.stage.remove(ctx, s)
	if err != nil {
		return ce, err
	}
	spec := r.spec(c, url, 200)
	if err := warm(ctx, r.gen, tool, spec, r.opt.Matrix.Load.Warmup); err != nil {
		return ce, err
	}
	var cpu []float64
	for range r.opt.Matrix.Load.Trials {
		start := time.Now()
		res, err := r.gen.Run(ctx, tool, spec)
		if err != nil {
			return ce, err
		}
		res = res.Sent() // a send never made is the generator's limit, not the server failing
		if problem, _ := res.Judge(loadgen.Judge{MaxErrorRate: r.opt.Matrix.Load.MaxErrorRate}); problem != "" {
			return ce, fmt.Errorf("the fixed-response server failed: %s", problem)
		}
		ce.TrialRPS = append(ce.TrialRPS, roundTo(res.RPS, 1))
		if cores, ok := r.gen.Usage(r.gen.loadStart(start), time.Now()); ok {
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
		lg, err = r.reachedBy(ctx, url)
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
// every load generator in turn; when one does not get it, it returns that
// generator's side and why.
func (r *runner) reachedBy(ctx context.Context, url string) (*side, error) {
	probe := func(g Generator) error {
		resp, err := g.Probe(ctx, url, Ask{Kind: probeHTTP, Timeout: r.opt.Matrix.Load.Timeout, Protocol: cellid.ProtoHTTP1})
		if err == nil && resp.Status != 200 {
			err = fmt.Errorf("answered status %d, not the fixed-response server's 200: is another server listening on port %d of that machine?", resp.Status, ceilingPort)
		}
		return err
	}
	f, ok := r.gen.Generator.(*fleet)
	if !ok {
		return r.sides.load, probe(r.gen)
	}
	for _, m := range f.members {
		if err := probe(m.gen); err != nil {
			return m.side, err
		}
	}
	return r.sides.load, nil
}
