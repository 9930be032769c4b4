package runner

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/verify"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
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
}

func keyOf(c matrix.Cell) ceilingKey {
	return ceilingKey{c.Generator, c.CPUs, c.Connections, c.Close, c.Pinning, c.Protocol}
}

// measureCeilings measures, once per (cores, connections) the run's cells
// use, what the load generator can draw from the fixed-response server in
// its image, running on the target's cores and loaded exactly like a
// target: the ceiling no target can pass here. It returns an error only
// when the run is interrupted; a ceiling that cannot be measured says why.
func (r *runner) measureCeilings(ctx context.Context, vs []*visit) error {
	r.ceilings = map[ceilingKey]float64{}
	if r.opt.NoCeiling {
		return nil
	}
	seen, top := map[ceilingKey]bool{}, map[ceilingKey]int{}
	for _, v := range vs {
		top[keyOf(v.c)] = max(top[keyOf(v.c)], v.c.Rate)
	}
	for _, ce := range r.out.Ceilings { // measured before a resume
		k := ceilingKey{ce.GeneratorName(), ce.CPUs, ce.Connections, ce.Close, ce.Pinning, ce.Protocol}
		r.ceilings[k], seen[k] = ce.RPS, true
	}
	for _, v := range vs {
		k := keyOf(v.c)
		if seen[k] || v.done {
			continue
		}
		seen[k] = true
		r.progress.Phase(v.c, "load generator ceiling")
		c := v.c
		c.Rate = top[k]
		ce, err := r.ceiling(ctx, c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			ce.Error = err.Error()
			fmt.Fprintf(r.log, "warning: %s ceiling on %d core(s), c%d%s: %v\n", k.gen, k.cpus, k.conns, closeText(k.close), err)
		} else if ce.AtLeast > 0 {
			fmt.Fprintf(r.log, "%s ceiling on %d core(s), c%d%s: above %s rps (it sustained the run's highest rate)\n", k.gen, k.cpus, k.conns, closeText(k.close), numfmt.Count(int64(ce.AtLeast)))
		} else {
			r.ceilings[k] = ce.RPS
			fmt.Fprintf(r.log, "%s ceiling on %d core(s), c%d%s: %s rps\n", k.gen, k.cpus, k.conns, closeText(k.close), numfmt.Sig(ce.RPS))
		}
		r.out.Ceilings = append(r.out.Ceilings, ce)
		r.save()
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
	return matrix.Estimate(r.m, one, matrix.VisitOverhead, matrix.GuessedRPS, false)
}

func closeText(close bool) string {
	if close {
		return " without keep-alive"
	}
	return ""
}

func (r *runner) ceiling(ctx context.Context, c matrix.Cell) (results.Ceiling, error) {
	ce := results.Ceiling{CPUs: c.CPUs, CPUSet: c.CPUSet.String(), Connections: c.Connections, Close: c.Close,
		Generator: c.Generator, NetworkMode: results.Network(r.mode), Pinning: c.Pinning, Protocol: c.Protocol}
	if err := r.gen.pin(ctx, c.LoadgenSet.String()); err != nil {
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
	d := &deployment{}
	defer r.remove(ctx, d)
	url, err := r.startFixed(ctx, d, c.CPUSet, cellid.Proto(c.Protocol))
	if err != nil {
		return ce, err
	}
	spec := r.spec(c, url, 200)
	if err := r.gen.warm(ctx, tool, spec, r.m.Load.Warmup); err != nil {
		return ce, err
	}
	var cpu []float64
	for range r.m.Load.Trials {
		start := time.Now()
		res, err := r.gen.run(ctx, tool, spec)
		if err != nil {
			return ce, err
		}
		res = res.Sent() // a send never made is the generator's limit, not the server failing
		if problem, _ := res.Judge(loadgen.Judge{MaxErrorRate: r.m.Load.MaxErrorRate}); problem != "" {
			return ce, fmt.Errorf("the fixed-response server failed: %s", problem)
		}
		ce.TrialRPS = append(ce.TrialRPS, roundTo(res.RPS, 1))
		if cores, ok := r.gen.cpu(start, time.Now()); ok {
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

// startFixed starts the fixed-response server in the load generator's image
// on the targets' engine, on cores, the way a target runs, and waits until
// the load generator gets its answer; it returns the server's URL as the
// load generator reaches it. d holds the container for the caller to remove.
func (r *runner) startFixed(ctx context.Context, d *deployment, cores cpuset.Set, protocol string) (string, error) {
	host := "127.0.0.1"
	switch {
	case r.tg.address != "": // two machines: the targets' machine's host network
		host = r.tg.address
	case r.mode == matrix.NetworkBridge:
		host = "ceiling"
	}
	r.visits++
	id, err := r.tg.eng.Start(ctx, engine.ContainerSpec{
		Name: fmt.Sprintf("webbench-%s-v%d-ceiling", r.id, r.visits), Image: r.tg.lgImage, Cmd: []string{"ceiling"},
		Env: fixedEnv(protocol), Files: r.serverFiles(protocol), CPUSet: cores.String(), Network: r.targetNetwork(),
		Aliases: []string{"ceiling"}, Labels: r.labels("ceiling", "", ""),
		Memory: matrix.DefaultLimits.MemoryBytes, Pids: matrix.DefaultLimits.Pids,
	})
	if id != "" {
		d.members = append(d.members, &member{service: "ceiling", alias: "ceiling", id: id})
	}
	if err != nil {
		return "", err
	}
	url := fmt.Sprintf("%s://%s/", scheme(protocol), net.JoinHostPort(host, strconv.Itoa(ceilingPort)))
	return url, r.waitReady(ctx, d, url, protocol)
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
	d := &deployment{}
	defer r.remove(ctx, d)
	tg, lg := r.tg, r.lg
	url, err := r.startFixed(ctx, d, tg.usable()[:1], cellid.ProtoHTTP1)
	if err == nil {
		var resp verify.Response
		if resp, err = r.gen.probe(ctx, url, r.m.Load.Timeout, probeHTTP, cellid.ProtoHTTP1); err == nil && resp.Status != 200 {
			err = fmt.Errorf("answered status %d, not the fixed-response server's 200: is another server listening on port %d of that machine?", resp.Status, ceilingPort)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the load generator on engine %s (%s) cannot reach the targets' machine, engine %s (%s), at %s: %v "+
			"(check engines.%s.address and that the targets' machine accepts TCP from the load generator's on the targets' ports)",
			lg.name, engine.Redact(lg.host), tg.name, engine.Redact(tg.host), url, err, tg.name)
	}
	id := d.members[0].id
	r.out.Environment.CPUModel = cpuModelIn(ctx, tg.eng, id)
	r.out.Environment.Machines[0].CPUModel = r.out.Environment.CPUModel
	r.maxNoFile = hardNoFile(ctx, tg.eng, id)
	fmt.Fprintf(r.log, "engine %s reaches the targets' machine (engine %s) at %s\n", lg.name, tg.name, tg.address)
	return nil
}
