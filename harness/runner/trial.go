package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// measurer measures a cell's running target through the run's load
// generator: the one answer that verifies it, and each trial, its CPU and
// memory from the samplers and its verdict by the matrix's load settings
// and, at no fixed rate, the generator's ceiling.
type measurer struct {
	m        *matrix.Matrix
	gen      *startedGenerator
	ceilings map[ceilingKey]float64 // the load generator's ceiling RPS
}

// verifyCell asks url for one answer as the cell's generator will ask
// (its size is what the bytes read under load are held to: a Connection:
// close answer carries other headers than a keep-alive one, and an answer
// to ab's HTTP/1.0 request other framing than one to an HTTP/1.1 request),
// and checks it against the scenario and the cell's protocol. A
// TechEmpower database test is asked further as TFB asks it
// (verify.FollowUp: its queries values, and again DateGap later).
func (ms *measurer) verifyCell(ctx context.Context, c matrix.Cell, sc matrix.Scenario, tool loadgen.Tool, url string, rc *results.Cell) (verify.Response, error) {
	http10 := loadgen.AsksHTTP10(tool)
	kind := probeHTTP
	if c.Close {
		kind |= probeClose
	}
	if http10 {
		kind |= probeHTTP10
	}
	ask := Ask{Kind: kind, Timeout: ms.m.Load.Timeout, Protocol: cellid.Proto(c.Protocol), Headers: sc.HeaderLines()}
	resp, err := ms.gen.Probe(ctx, url, ask)
	if err != nil {
		return resp, err
	}
	problems, warnings := verify.Check(sc.Expect, resp, c.Subst)
	if resp.Error == "" {
		problems = append(problems, verify.Protocol(cellid.Proto(c.Protocol), http10, resp)...)
		rc.Negotiated = resp.Negotiated
	}
	if len(problems) == 0 && sc.Expect.TFB != nil { // what TFB asks beyond one answer
		get := func(ctx context.Context, u string) (verify.Response, error) { return ms.gen.Probe(ctx, u, ask) }
		more, err := verify.FollowUp{Get: get}.Check(ctx, sc, c, url, resp)
		if err != nil {
			return resp, err
		}
		problems = verify.Texts(more)
	}
	if len(problems) == 0 { // what the workload rules ask beyond one answer
		asker := func(ctx context.Context, u string, headers []string) (verify.Response, error) {
			a := ask
			a.Headers = headers
			return ms.gen.Probe(ctx, u, a)
		}
		more, err := verify.Workload{Ask: asker}.Check(ctx, sc, url, resp)
		if err != nil {
			return resp, err
		}
		problems = verify.Texts(more)
	}
	rc.Warnings = append(rc.Warnings, warnings...)
	if len(problems) > 0 {
		return resp, fmt.Errorf("verify %s: %s", url, strings.Join(problems, "; "))
	}
	if ab, ok := tool.(loadgen.Ab); ok && !c.Close {
		switch why := ab.KeepAliveRefused(resp.Header); {
		case why != "" && resp.ClosedAfter:
			// ab reads each answer to the close: it works, without keep-alive.
			rc.Warnings = append(rc.Warnings, "the target answers ab's keep-alive request without a Keep-Alive header and closes the connection: ab measures it without keep-alive")
		case why != "":
			return resp, &skipError{why: why}
		}
	}
	return resp, nil
}

// measureTrial runs trial k of the cell and records it (kept even when it
// fails the cell: it shows what failed), then the cell's summary.
func (ms *measurer) measureTrial(ctx context.Context, s stack, c matrix.Cell, rc *results.Cell, tool loadgen.Tool, spec loadgen.Spec, judge loadgen.Judge, k int) error {
	tr, res, warns, err := ms.trial(ctx, s, tool, spec, c.Pinning == "")
	if err != nil {
		// A container that died explains a failed run best (OOM-killed…).
		if dead := s.stoppedWithin(ctx, "during the trial", exitGrace); dead != nil {
			return &trialError{n: k, err: dead, why: results.WhyTargetStopped}
		}
		return &trialError{n: k, err: err}
	}
	verdict, judged := res.Verdict(judge)
	problem, why := verdict.Text, results.Why(verdict.Kind) // results.json's own code for the generator's
	if behind := ms.gen.behindShare(); behind != nil {
		problem = strings.TrimSuffix(behind.Error()+"\n"+problem, "\n") // the generator first: it says why
		why = results.WhyRateNotHeld
	}
	for _, w := range judged {
		warns = append(warns, fmt.Sprintf("trial %d: %s", k, w))
	}
	for _, w := range warns {
		if !slices.Contains(rc.Warnings, w) {
			rc.Warnings = append(rc.Warnings, w)
		}
	}
	rc.Trials = append(rc.Trials, tr)
	if problem != "" {
		failed := errors.New(problem)
		if dead := s.stoppedWithin(ctx, "during the trial", exitGrace); dead != nil {
			failed, why = errors.Join(dead, failed), results.WhyTargetStopped // it first: it says why
		}
		return &trialError{n: k, err: failed, why: why}
	}
	rc.Summary = analysis.Summarize(rc.Trials, results.Aggregate(ms.m.Load.Aggregate))
	if c.Rate == 0 { // at a fixed rate the ceiling says nothing: the rate bounds it
		analysis.JudgeBound(rc.Summary, ms.ceilings[keyOf(c)], c.Pinning != "")
	} else {
		analysis.JudgeBound(rc.Summary, 0, c.Pinning != "")
	}
	return nil
}

// trial runs one measured run of the load generator; the samplers, running for the
// whole cell, say what CPU the target's containers (summed) and the load
// generator used, and the target's peak memory (summed over containers).
func (ms *measurer) trial(ctx context.Context, st stack, tool loadgen.Tool, s loadgen.Spec, pinned bool) (results.Trial, loadgen.Result, []string, error) {
	start := time.Now()
	res, err := ms.gen.Run(ctx, tool, s)
	end := time.Now()
	start = ms.gen.loadStart(start)
	if err != nil {
		return results.Trial{}, res, nil, err
	}
	var warnings []string
	var tCores float64
	var tMem, tSteady uint64
	measured := true
	services := map[string]*results.ServiceUsage{}
	for _, m := range st.members() {
		window := m.stats.Window(start, end)
		cores, mem, ok := engine.Rates(window)
		tCores += cores
		tMem += mem
		tSteady += engine.Steady(window)
		measured = measured && ok
		u := services[m.service]
		if u == nil {
			u = &results.ServiceUsage{}
			services[m.service] = u
		}
		u.CPUCores += cores
		u.MemPeakMiB += float64(mem) / (1 << 20)
	}
	if !measured {
		// A sum that misses a container would look like a measurement.
		tCores = 0
		for _, u := range services {
			u.CPUCores = 0
		}
		warnings = append(warnings, "trial too short for two stats samples: target CPU not measured")
	}
	var perService map[string]results.ServiceUsage
	if len(services) > 1 { // of a target of several services: nginx and its pool each
		perService = map[string]results.ServiceUsage{}
		for name, u := range services {
			perService[name] = results.ServiceUsage{CPUCores: roundTo(u.CPUCores, 3), MemPeakMiB: roundTo(u.MemPeakMiB, 2)}
		}
	}
	warnings = append(warnings, st.nearMemoryLimit(start, end)...)
	lCores, ok := ms.gen.Usage(start, end)
	if !ok {
		warnings = append(warnings, "trial too short for two stats samples: load generator CPU not measured")
	}
	started := start.UTC().Truncate(time.Millisecond)
	tr := results.Trial{
		StartedAt:          &started,
		Result:             resultOf(res),
		TargetCPUCores:     roundTo(tCores, 3),
		TargetMemPeakMiB:   roundTo(float64(tMem)/(1<<20), 2),
		TargetMemSteadyMiB: roundTo(float64(tSteady)/(1<<20), 2),
		LoadgenCPUCores:    roundTo(lCores, 3),
		GeneratorBound:     pinned && lCores >= analysis.GeneratorBoundShare*float64(ms.m.Load.LoadgenCPUs),
		Services:           perService,
	}
	warnings = append(warnings, ms.gen.spread(&tr, tool.Name(), start, end, pinned, ms.m.Load.LoadgenCPUs)...)
	return tr, res, warnings, nil
}
