package runner

import (
	"context"
	"fmt"
	"time"

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
	cpus, conns int
	close       bool
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
	seen := map[ceilingKey]bool{}
	for _, ce := range r.out.Ceilings { // measured before a resume
		k := ceilingKey{ce.CPUs, ce.Connections, ce.Close}
		r.ceilings[k], seen[k] = ce.RPS, true
	}
	for _, v := range vs {
		k := ceilingKey{v.c.CPUs, v.c.Connections, v.c.Close}
		if seen[k] || v.done {
			continue
		}
		seen[k] = true
		r.progress.Phase(v.c, "load generator ceiling")
		ce, err := r.ceiling(ctx, v.c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			ce.Error = err.Error()
			fmt.Fprintf(r.log, "warning: load generator ceiling on %d core(s), c%d%s: %v\n", k.cpus, k.conns, closeText(k.close), err)
		} else {
			r.ceilings[k] = ce.RPS
			fmt.Fprintf(r.log, "load generator ceiling on %d core(s), c%d%s: %s rps\n", k.cpus, k.conns, closeText(k.close), numfmt.Sig(ce.RPS))
		}
		r.out.Ceilings = append(r.out.Ceilings, ce)
		r.save()
	}
	return nil
}

func closeText(close bool) string {
	if close {
		return " without keep-alive"
	}
	return ""
}

func (r *runner) ceiling(ctx context.Context, c matrix.Cell) (results.Ceiling, error) {
	ce := results.Ceiling{CPUs: c.CPUs, CPUSet: c.CPUSet.String(), Connections: c.Connections, Close: c.Close, NetworkMode: r.mode}
	host := "127.0.0.1"
	if r.mode == matrix.NetworkBridge {
		host = "ceiling"
	}
	r.visits++
	d := &deployment{}
	defer r.remove(ctx, d)
	id, err := r.eng.Start(ctx, engine.ContainerSpec{
		Name: fmt.Sprintf("webbench-%s-v%d-ceiling", r.id, r.visits), Image: r.loadgenImage, Cmd: []string{"ceiling"},
		Env: []string{fmt.Sprintf("PORT=%d", ceilingPort)}, CPUSet: c.CPUSet.String(), Network: r.targetNetwork(),
		Aliases: []string{host}, Labels: r.labels("ceiling", "", ""),
		Memory: matrix.DefaultLimits.MemoryBytes, Pids: matrix.DefaultLimits.Pids,
	})
	if id != "" {
		d.members = append(d.members, &member{service: "ceiling", alias: "ceiling", id: id})
	}
	if err != nil {
		return ce, err
	}
	url := fmt.Sprintf("http://%s:%d/", host, ceilingPort)
	if err := r.waitReady(ctx, d, url); err != nil {
		return ce, err
	}
	spec := loadgen.Spec{URL: url, Connections: c.Connections, Duration: r.m.Load.Duration,
		Requests: r.m.Load.Requests, Timeout: r.m.Load.Timeout, Expect: 200, Close: c.Close}
	if r.m.Load.Warmup > 0 {
		w := spec
		w.Duration, w.Requests = r.m.Load.Warmup, 0
		if _, err := r.bombard(ctx, w); err != nil {
			return ce, fmt.Errorf("warm-up: %w", err)
		}
	}
	var cpu []float64
	for range r.m.Load.Trials {
		start := time.Now()
		res, err := r.bombard(ctx, spec)
		if err != nil {
			return ce, err
		}
		if problem, _ := res.Judge(loadgen.Judge{MaxErrorRate: r.m.Load.MaxErrorRate}); problem != "" {
			return ce, fmt.Errorf("the fixed-response server failed: %s", problem)
		}
		ce.TrialRPS = append(ce.TrialRPS, roundTo(res.RPS, 1))
		if cores, _, ok := engine.Rates(r.loadgenStats.Window(start, time.Now())); ok {
			cpu = append(cpu, cores)
		}
	}
	ce.RPS = roundTo(stats.Describe(ce.TrialRPS).Median, 1)
	if len(cpu) > 0 {
		ce.LoadgenCPU = roundTo(stats.Describe(cpu).Median, 3)
	}
	return ce, nil
}
