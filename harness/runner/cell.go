package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/plan"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// visit is a runnable cell of a built target.
type visit struct {
	t      matrix.Target
	c      matrix.Cell
	rc     *results.Cell
	index  int  // position in the expansion order
	done   bool // failed, or all trials run
	listed bool // in r.ledger.out.Cells
}

// prepareTarget readies a target for its build: when none of its cells
// can run they are recorded at once. It returns the build to start, or the
// target's visits when it needs none (a resumed run measured them all).
func (r *runner) prepareTarget(t matrix.Target, cells []matrix.Cell) (*buildJob, []*visit) {
	runnable, todo := 0, 0
	for _, c := range cells {
		if c.Skip == "" {
			runnable++
			if _, done := r.ledger.keptCell(c); !done {
				todo++
			}
		}
	}
	if runnable == 0 {
		r.ledger.recordUnrun(cells, results.Skipped, "")
		return nil, nil
	}
	if todo == 0 { // resumed, and every cell of the target is measured
		return nil, r.visitsOf(t, cells, nil)
	}
	return &buildJob{t: t, rev: cells[0].Key.Axis(axis.Revision), cells: cells, done: make(chan builtTarget, 1)}, nil
}

// imageTag is the tag of a service's image: webbench/target-<target>, or
// webbench/target-<target>-<service> for a target of several services.
func imageTag(t matrix.Target, svc matrix.Service) string {
	if len(t.Services) > 1 {
		return "webbench/target-" + t.Name + "-" + svc.Name + ":latest"
	}
	return "webbench/target-" + t.Name + ":latest"
}

// visitsOf records t's cells that cannot run and returns a visit for each
// other one: a new cell on img, or the cell a resumed run measured (done
// when it needs no more trials).
func (r *runner) visitsOf(t matrix.Target, cells []matrix.Cell, img *results.Image) []*visit {
	var out []*visit
	for _, c := range cells {
		if c.Skip != "" {
			rc := newCell(c)
			rc.Status, rc.Reason = results.Skipped, c.Skip
			r.ledger.record(rc)
			continue
		}
		if rc, done := r.ledger.keptCell(c); rc != nil {
			out = append(out, &visit{t: t, c: c, rc: rc, listed: true, done: done})
			continue
		}
		rc := newCell(c)
		rc.ServiceCPUSets = serviceCPUSets(t, c)
		rc.Split = r.splitOf(c)
		rc.Generator.Version = r.gen.Versions[c.Generator]
		rc.Image = &results.Image{ID: img.ID, Bases: img.Bases, Services: img.Services, Sizes: img.Sizes}
		rc.Revision = r.builds.revisionOf(c)
		lim := limitsOf(t.Limits)
		var clamped string
		lim.NoFile, clamped = r.gen.noFile(lim.NoFile)
		rc.Limits = &lim
		if clamped != "" {
			rc.Warnings = append(rc.Warnings, clamped)
		}
		out = append(out, &visit{t: t, c: c, rc: rc})
	}
	return out
}

// schedule runs the runnable cells: each with all its trials in turn
// (sequential), or in rounds, trial k of every cell per round, in an order
// shuffled per round from the recorded seed (interleaved), so that the
// drift of a noisy machine spreads over every cell instead of biasing the
// last ones. Each visit starts fresh containers and warms them up. It
// returns an error only when the run is interrupted.
func (r *runner) schedule(ctx context.Context, cells []matrix.Cell, vs []*visit) error {
	index := map[string]int{}
	for i, c := range cells {
		index[c.ID()] = i
	}
	for _, v := range vs {
		v.index = index[v.c.ID()]
	}
	defer r.ledger.sortCells(index)
	if !r.order.interleave {
		for _, v := range vs {
			if v.done {
				continue
			}
			// A cell a killed run measured in part gets its other trials.
			had := len(v.rc.Trials)
			if err := r.visit(ctx, v, r.opt.Matrix.Load.Trials-had, had+1); err != nil {
				return err
			}
		}
		return nil
	}
	if r.order.duet {
		if err := r.startLanes(ctx, cells); err != nil {
			return err
		}
		return r.duetRounds(ctx, vs)
	}
	keys := make([]cellid.Key, len(vs))
	for i, v := range vs {
		keys[i] = v.c.Key
	}
	for k, order := range r.order.rounds(keys, r.opt.Matrix.RelativeTo, r.opt.Matrix.Load.Trials) {
		round := k + 1
		for _, i := range order {
			if vs[i].done || len(vs[i].rc.Trials) >= round { // measured before a resume
				continue
			}
			if err := r.visit(ctx, vs[i], 1, round); err != nil {
				return err
			}
		}
	}
	return nil
}

// visit runs trials trials of v (the first being trial number first) and
// records the outcome. It returns an error only when the run is interrupted.
func (r *runner) visit(ctx context.Context, v *visit, trials, first int) error {
	start := time.Now()
	return r.settle(ctx, v, r.runCell(ctx, v, trials, first), trials, first, start)
}

// settle records the outcome err of v's visit, begun at start, that ran
// trials trials from number first. It returns an error only when the run
// is interrupted.
func (r *runner) settle(ctx context.Context, v *visit, err error, trials, first int, start time.Time) error {
	v.rc.Seconds = roundTo(v.rc.Seconds+time.Since(start).Seconds(), 2)
	if ctx.Err() != nil {
		// An interrupted visit records nothing more: the trials it
		// finished are saved (savedTrial), the one cut short is not.
		return ctx.Err()
	}
	units := 1
	if err != nil {
		// Not the cell's fault when the run's own load generator or network
		// is gone (removed by someone, engine restarted): stop the run with
		// one error rather than fail every remaining cell with the same one.
		// One of several generators that died is started again first: it
		// fails only this cell, whose reason names its engine.
		for _, e := range r.gen.revive(ctx) {
			v.rc.Warnings = append(v.rc.Warnings, fmt.Sprintf("the load generator on engine %s vanished or stopped, and was started again for the next cell", e))
		}
		if gone := r.infraGone(ctx); gone != nil {
			return gone
		}
		v.rc.Status, v.rc.Reason, v.rc.Why = results.Failed, err.Error(), ""
		var te *trialError
		var skip *skipError
		switch {
		case errors.As(err, &skip):
			v.rc.Status, v.rc.Reason = results.Skipped, skip.why
		case errors.As(err, &te):
			v.rc.Reason, v.rc.Why = fmt.Sprintf("trial %d: %v", te.n, te.err), te.why
		case r.order.interleave:
			v.rc.Reason = fmt.Sprintf("trial %d: %v", first, err) // the visit failed before it measured
		}
		if r.order.interleave {
			units += r.opt.Matrix.Load.Trials - first // the visits it will not get
		}
		v.rc.Summary = nil
		v.done = true
	} else {
		r.ledger.measured(v.rc)
		v.done = first+trials > r.opt.Matrix.Load.Trials
		r.timing.bookVisit(r.opt.Matrix, v.c, trials, time.Since(start))
	}
	r.ledger.list(v)
	r.ledger.save()
	r.opt.Progress.Done(v.rc, units)
	return nil
}

func newCell(c matrix.Cell) *results.Cell {
	return &results.Cell{Target: c.Target, Variant: c.Variant, Scenario: c.Scenario, Params: c.Params, CPUs: c.CPUs, Generator: &results.Generator{Name: c.Generator},
		CPUSet: c.CPUSet.String(), LoadgenCPUSet: c.LoadgenSet.String(), Connections: c.Connections, Close: c.Close, Rate: c.Rate, Control: c.Control,
		Pinning: c.Pinning, Protocol: c.Protocol, Requests: c.Requests, Loadgens: c.Loadgens, Axes: c.Axes, Placement: c.Placement, Pipeline: c.Pipeline}
}

// serviceCPUSets are the cores each service of t runs on in c, for a
// target of several services; nil for one.
func serviceCPUSets(t matrix.Target, c matrix.Cell) map[string]string {
	if len(t.Services) < 2 {
		return nil
	}
	out := map[string]string{}
	for _, svc := range t.Services {
		out[svc.Name] = c.ServiceSet(svc.Name).String()
	}
	return out
}

// scenarioNamed is m's scenario called name (one with only that name
// when m has none so called).
func scenarioNamed(m *matrix.Matrix, name string) matrix.Scenario {
	for _, s := range m.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return matrix.Scenario{Name: name}
}

// Readiness polling: each probe waits at most probeTimeout for an answer,
// and a target that did not answer is asked again after pollInterval.
const (
	probeTimeout = time.Second
	pollInterval = 100 * time.Millisecond
	// removeTimeout bounds removing a visit's containers, which runs even
	// after the run's context was cancelled.
	removeTimeout = 30 * time.Second
	// execGrace is how long past a trial's deadline the harness waits for
	// the engine to return the killed load generator's exec.
	execGrace = 30 * time.Second
)

// runCell starts fresh containers of v's target for its cell, warms them
// up and runs trials trials (numbered from first), saving after each, then,
// for TFB's updates test, holds them to what the database shows written
// (dbcheck.go); a TFB database test's verification and trials are held to
// the queries the database counts they cost (dbcounts.go). A failure of a
// database target's cell carries the database's last log lines
// (dblogs.go). The containers are removed before it returns.
func (r *runner) runCell(ctx context.Context, v *visit, trials, first int) (err error) {
	t, c, rc := v.t, v.c, v.rc
	sc := scenarioNamed(r.opt.Matrix, c.Scenario)
	ms := &measurer{m: r.opt.Matrix, gen: &r.gen, ceilings: r.ceilings.rps}
	if r.stage.leftover != nil {
		return fmt.Errorf("not measured beside what an earlier visit left running: %v", r.stage.leftover)
	}
	r.gen.use(len(r.sides.gensOf(c)))
	cores, err := r.gen.Pin(ctx, c.LoadgenSet.String())
	if err != nil {
		return err
	}
	rc.LoadgenCPUSet = cores // where the engine says the generator runs
	r.opt.Progress.Phase(c, "start")
	started := time.Now()
	s, err := r.stage.deploy(ctx, t, c, rc)
	defer r.stage.remove(ctx, s)
	defer func() { err = s.withDatabaseLogs(ctx, err) }() // before the removal
	if err != nil {
		return err
	}
	url := fmt.Sprintf("%s://%s%s", scheme(c.Protocol), r.stage.fromLoadgen(layout(t, r.stage.network.mode)[t.Entry][0]), c.Subst(sc.Path))

	r.opt.Progress.Phase(c, "ready")
	if err := s.ready(ctx, readiness(r.gen, s, url, cellid.Proto(c.Protocol)), r.opt.Matrix.Load.ReadyTimeout); err != nil {
		return err
	}
	rc.Image.RuntimeVersion = r.stage.runtimeVersions(ctx, s)

	r.opt.Progress.Phase(c, "verify")
	tool := loadgen.Tools[c.Generator]
	counter := r.stage.countQueries(s, sc, c)
	var resp verify.Response
	err = counter.verified(ctx, rc, url, func() (err error) {
		resp, err = ms.verifyCell(ctx, c, sc, tool, url, rc)
		return err
	})
	if err != nil {
		return err
	}
	rc.Startup = append(rc.Startup, roundTo(time.Since(started).Seconds(), 3))

	spec := r.spec(c, url, sc.Expect.Status)
	judge := loadgen.Judge{Connections: c.Connections, Pipeline: c.Pipeline, MaxErrorRate: r.opt.Matrix.Load.MaxErrorRate, AnswerBytes: resp.WireBytes, Rate: c.Rate}
	if c.Protocol != "" {
		// Over TLS the tools count bytes on different sides of it (wrk
		// the plaintext, bombardier the records and handshakes), and
		// HTTP/2 compresses headers per connection: no one answer's size
		// to hold them to.
		judge.AnswerBytes = 0
	}
	if r.opt.Matrix.Load.Warmup > 0 {
		r.opt.Progress.Phase(c, "warm-up")
	}
	r.meet(rc, "warm-up")
	if err := warm(ctx, r.gen, tool, spec, r.opt.Matrix.Load.Warmup); err != nil {
		return err
	}
	writes, err := r.stage.watchWrites(ctx, s, sc, rc)
	if err != nil {
		return err
	}
	counter.start(ctx, rc)
	for k := first; k < first+trials; k++ {
		r.opt.Progress.Phase(c, fmt.Sprintf("trial %d/%d", k, r.opt.Matrix.Load.Trials))
		r.meet(rc, fmt.Sprintf("trial %d", k))
		if err := ms.measureTrial(ctx, s, c, rc, tool, spec, judge, k); err != nil {
			return err
		}
		counter.trial(ctx, rc, k)
		if r.pair.side == nil { // a duet's sides are saved together, after both ran
			r.ledger.savedTrial(v)
		}
	}
	if err := s.running(ctx, "during the trials"); err != nil {
		return err
	}
	return writes.check(ctx, rc)
}

// skipError is a cell that cannot be measured as asked, found only once
// its target answered: it is recorded as skipped with the reason, not as
// failed (the target broke no rule).
type skipError struct{ why string }

func (e *skipError) Error() string { return e.why }

// spec is the load of cell c at url, whose scenario expects status expect.
func (r *runner) spec(c matrix.Cell, url string, expect int) loadgen.Spec {
	return plan.Spec(r.opt.Matrix, c, url, expect)
}

// trialError is a failure of measured trial n.
type trialError struct {
	n   int
	err error
	why results.Why // its kind, when known
}

func (e *trialError) Error() string { return fmt.Sprintf("trial %d: %v", e.n, e.err) }
func (e *trialError) Unwrap() error { return e.err }
