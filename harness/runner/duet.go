package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// A duet run (Bulej et al., ICPE'20) measures a cell compared trial by
// trial (a later revision, an A/A control) at the same time as the cell
// it is compared with, each side with its own load generator on cores of
// its own, so that whatever the machine does during a trial it does to
// both. Each side is a lane: a runner sharing the run's results, builds
// and ceilings, with its own generator and containers. The two sides meet
// before the warm-up and before the trial, and swap cores every round so
// that neither core's speed favours one side.

// meeting is where a duet's two sides wait for each other.
type meeting struct {
	mu      sync.Mutex
	cond    *sync.Cond
	reached [2]int  // meeting points each side reached
	left    [2]bool // the side's visit ended
}

func newMeeting() *meeting {
	m := &meeting{}
	m.cond = sync.NewCond(&m.mu)
	return m
}

// wait is side's arrival at its next meeting point. It returns once the
// other side reached that point too (true), or ended without (false).
func (m *meeting) wait(side int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reached[side]++
	m.cond.Broadcast()
	other := 1 - side
	for !m.left[other] && m.reached[other] < m.reached[side] {
		m.cond.Wait()
	}
	return m.reached[other] >= m.reached[side]
}

// leave is side's visit ending: the other side waits for it no more.
func (m *meeting) leave(side int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.left[side] = true
	m.cond.Broadcast()
}

// duetState is a runner's part in duets: for the run, its two sides
// (lanes) and the second side's generator when a test gives one (nil: a
// container); for a lane, its place in the duet it runs (nil outside one).
type duetState struct {
	lanes   [2]*runner
	partner Generator
	side    *duetSide
}

// duetSide is a lane's place in the duet it runs: its meeting and which
// side it is.
type duetSide struct {
	m *meeting
	n int
}

// meet waits, in a duet, for the other side to reach what (a warm-up, a
// trial), noting in rc when it had stopped before.
func (r *runner) meet(rc *results.Cell, what string) {
	if r.pair.side == nil {
		return
	}
	if !r.pair.side.m.wait(r.pair.side.n) {
		rc.Warnings = append(rc.Warnings, what+" ran alone: the cell beside it in the duet had stopped")
	}
}

// seated is v on st's cores: the cell as placed for one trial of a duet,
// sharing v's results.
func seated(v *visit, st matrix.Seat) *visit {
	c := v.c
	c.CPUSet, c.LoadgenSet = st.Target, st.Loadgen
	return &visit{t: v.t, c: c, rc: v.rc, index: v.index, done: v.done, listed: v.listed}
}

// shadow is a visit of v's cell whose results are its own: the reading of
// a baseline beside another cell, which is not one of the baseline's
// trials.
func shadow(v *visit) *visit {
	rc := *v.rc
	rc.Trials, rc.Warnings, rc.Startup = nil, nil, nil
	return &visit{t: v.t, c: v.c, rc: &rc, index: v.index}
}

// has says whether v needs nothing of round: it is done (failed, or every
// trial run) or has the round's trial (measured before a resume).
func has(v *visit, round int) bool { return v.done || len(v.rc.Trials) >= round }

// failed says whether v ended without its trials: failed or skipped.
func failed(v *visit) bool {
	return v.done && v.rc.Status != results.OK && v.rc.Status != results.Partial
}

// duetRounds runs the rounds of a duet run (order.duets).
func (r *runner) duetRounds(ctx context.Context, vs []*visit) error {
	keys := make([]cellid.Key, len(vs))
	for i, v := range vs {
		keys[i] = v.c.Key
	}
	for k, slots := range r.order.duets(keys, r.opt.Matrix.RelativeTo, r.opt.Matrix.Load.Trials) {
		for _, s := range slots {
			if err := r.duetSlot(ctx, vs, s, k+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// duetSlot runs slot s of round: a duet, or one cell alone when it is
// compared with nothing, its partner failed, or it failed itself while
// its partner still needs its own trial of the round.
func (r *runner) duetSlot(ctx context.Context, vs []*visit, s slot, round int) error {
	own := vs[s.own]
	if s.partner < 0 {
		if has(own, round) {
			return nil
		}
		return r.visit(ctx, own, 1, round)
	}
	base := vs[s.partner]
	ownDue, baseDue := !has(own, round), s.partnerOwn && !has(base, round)
	switch {
	case ownDue && failed(base):
		return r.visit(ctx, own, 1, round)
	case ownDue && !inDuet(own.c):
		return r.backToBack(ctx, own, base, baseDue, round, s.swap)
	case ownDue:
		return r.duet(ctx, own, base, baseDue, round, s.swap)
	case baseDue:
		return r.visit(ctx, base, 1, round)
	}
	return nil
}

// backToBack runs round's trial of own and, when baseOwn is set, of its
// baseline base, one after the other (the interleaved schedule's blocks
// in a run that holds duets too): base first when first is set.
func (r *runner) backToBack(ctx context.Context, own, base *visit, baseOwn bool, round int, first bool) error {
	order := []*visit{own}
	if baseOwn {
		order = append(order, base)
		if first {
			order[0], order[1] = base, own
		}
	}
	for _, v := range order {
		if err := r.visit(ctx, v, 1, round); err != nil {
			return err
		}
	}
	return nil
}

// duet runs round's trial of own at the same time as its partner base:
// base's own trial of the round when baseOwn is set, else a reading of it
// beside own's. Cells whose two sides do not fit the machine run one after
// the other, saying so.
func (r *runner) duet(ctx context.Context, own, base *visit, baseOwn bool, round int, swap bool) error {
	places, how, ok := matrix.DuetSeats(r.sides.target.usable(), own.c, r.opt.Matrix.Load.LoadgenCPUs)
	if !ok {
		note(own.rc, "not measured in a duet: this machine's cores cannot hold two of its targets; measured one after the other")
		if err := r.visit(ctx, own, 1, round); err != nil || !baseOwn {
			return err
		}
		return r.visit(ctx, base, 1, round)
	}
	other := base
	if !baseOwn {
		other = shadow(base)
	}
	if swap {
		places[0], places[1] = places[1], places[0]
	}
	sides := [2]*visit{seated(own, places[0]), seated(other, places[1])}
	before := [2]int{len(own.rc.Trials), len(other.rc.Trials)}
	start := time.Now()
	errs := r.together(ctx, sides, round)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for i, v := range sides {
		if len(v.rc.Trials) > before[i] {
			t := &v.rc.Trials[len(v.rc.Trials)-1]
			t.CPUSet, t.LoadgenCPUSet = places[i].Target.String(), places[i].Loadgen.String()
		}
	}
	own.rc.Duet = fmt.Sprintf("measured at the same time as %s, %s; the sides swap cores every round", base.rc.ID(), how)
	base.rc.Duet = fmt.Sprintf("measured at the same time as each cell compared with it, %s; the sides swap cores every round", how)
	r.beside(sides, before, errs[1], round)
	return r.settleDuet(ctx, own, base, sides, baseOwn, errs, round, start)
}

// beside puts the trial the second side measured beside the first's new
// trial, or notes on the first why it has none.
func (r *runner) beside(sides [2]*visit, before [2]int, err error, round int) {
	own, other := sides[0].rc, sides[1].rc
	if len(own.Trials) == before[0] {
		return
	}
	if len(other.Trials) == before[1] || err != nil {
		note(own, fmt.Sprintf("round %d: the cell beside it did not measure (%v): its trial is paired with the baseline's own", round, err))
		return
	}
	b := other.Trials[len(other.Trials)-1]
	own.Trials[len(own.Trials)-1].Beside = &results.Beside{Cell: other.ID(), Result: b.Result, TargetCPUCores: b.TargetCPUCores,
		CPUSet: b.CPUSet, LoadgenCPUSet: b.LoadgenCPUSet}
}

// settleDuet records the outcome of a duet's visits, as a visit does,
// one side after the other: own's, and base's when it ran its own trial.
func (r *runner) settleDuet(ctx context.Context, own, base *visit, sides [2]*visit, baseOwn bool, errs [2]error, round int, start time.Time) error {
	real := []*visit{own}
	if baseOwn {
		real = append(real, base)
	}
	for i, v := range real {
		if err := r.pair.lanes[i].settle(ctx, sides[i], errs[i], 1, round, start); err != nil {
			return err
		}
		v.done, v.listed = sides[i].done, sides[i].listed
	}
	return nil
}

// together runs one trial of each side at the same time, each on its
// lane, and returns each side's error.
func (r *runner) together(ctx context.Context, sides [2]*visit, round int) [2]error {
	m := newMeeting()
	var errs [2]error
	var wg sync.WaitGroup
	for i, v := range sides {
		lane := r.pair.lanes[i]
		lane.pair.side = &duetSide{m: m, n: i}
		wg.Go(func() {
			defer m.leave(i)
			errs[i] = lane.runCell(ctx, v, 1, round)
		})
	}
	wg.Wait()
	return errs
}

// note adds warning w to rc once.
func note(rc *results.Cell, w string) {
	if !slices.Contains(rc.Warnings, w) {
		rc.Warnings = append(rc.Warnings, w)
	}
}

// startLanes readies a duet run's two sides: the first with the run's
// load generator and containers, the second with a generator of its own
// (a container beside the first, on the same engine) and containers named
// apart. Both share the run's results, which only the run writes, one
// side after the other.
func (r *runner) startLanes(ctx context.Context, cells []matrix.Cell) error {
	progress := &lockedProgress{p: r.opt.Progress}
	for i := range r.pair.lanes {
		l := new(runner)
		*l = *r
		l.opt.Progress = progress
		if i == 1 {
			l.gen = startedGenerator{Generator: r.pair.partner}
			if l.gen.Generator == nil {
				g := r.containerGenerator(r.sides.load)
				g.spec.Name += "-b"
				l.gen.Generator = g
			}
			st := *r.stage
			st.gen, st.lane, st.visits, st.leftover = &l.gen, "b", 0, nil
			l.stage = &st
		}
		r.pair.lanes[i] = l
	}
	set, tools := runTools(cells)
	var err error
	r.pair.lanes[1].gen.Started, err = r.pair.lanes[1].gen.Start(ctx, set, tools)
	if err != nil {
		return fmt.Errorf("the duet's second load generator: %w", err)
	}
	return nil
}

// lockedProgress is a Progress that a duet's two sides tell at once.
type lockedProgress struct {
	mu sync.Mutex
	p  Progress
}

func (l *lockedProgress) Start(units int, estimate time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Start(units, estimate)
}

func (l *lockedProgress) Phase(c matrix.Cell, phase string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Phase(c, phase)
}

func (l *lockedProgress) Done(c *results.Cell, units int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Done(c, units)
}

func (l *lockedProgress) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p.Finish()
}

// generator is a lane's load generator; nil for no lane.
func (r *runner) generator() Generator {
	if r == nil {
		return nil
	}
	return r.gen.Generator
}

// duets says whether any cell that runs is on the duet schedule.
func duets(cells []matrix.Cell) bool {
	return slices.ContainsFunc(cells, func(c matrix.Cell) bool { return c.Skip == "" && inDuet(c) })
}

// inDuet says whether c is on the duet schedule.
func inDuet(c matrix.Cell) bool { return c.Key.Axis(axis.Schedule) == axis.ScheduleDuet }

// duetFits refuses a run of duets that cannot be one: its trials run in
// rounds, on one engine, where each side's target joins its own
// generator's network namespace (shared mode), so that two targets listen
// on one port apart.
func (r *runner) duetFits(cells []matrix.Cell) error {
	if !duets(cells) {
		return nil
	}
	if r.opt.Sequential {
		return fmt.Errorf("--sequential runs cell by cell, and schedule duet runs two cells at once: ask for one of them")
	}
	if r.sides.machines != nil {
		return fmt.Errorf("schedule duet runs on one engine: a run over several machines' engines cannot be a duet")
	}
	if mode := r.stage.network.mode; mode != matrix.NetworkShared {
		return fmt.Errorf("schedule duet needs network mode shared (each side's target in its own load generator's namespace); this run's is %s", mode)
	}
	return nil
}
