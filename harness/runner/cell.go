package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
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
	listed bool // in r.out.Cells
}

// prepareTarget builds a target's services and returns its runnable
// cells; cells that cannot run (skipped, build failed) are recorded at
// once. It returns an error only when the run is interrupted.
func (r *runner) prepareTarget(ctx context.Context, t matrix.Target, cells []matrix.Cell, loadgenErr error) ([]*visit, error) {
	runnable, todo := 0, 0
	for _, c := range cells {
		if c.Skip == "" {
			runnable++
			if _, done := r.keptCell(c); !done {
				todo++
			}
		}
	}
	// Cells that cannot run are recorded without building anything; what a
	// resumed run measured whole stays as it was.
	fail := func(status results.Status, reason string) {
		for _, c := range cells {
			rc, done := r.keptCell(c)
			switch {
			case done && c.Skip == "":
				continue
			case rc != nil: // partly measured: listed already
				rc.Status, rc.Reason, rc.Summary = status, reason, nil
				continue
			}
			rc = newCell(c)
			if c.Skip != "" {
				rc.Status, rc.Reason = results.Skipped, c.Skip
			} else {
				rc.Status, rc.Reason = status, reason
			}
			r.record(rc)
		}
	}
	if runnable == 0 {
		fail(results.Skipped, "")
		return nil, nil
	}
	if todo == 0 { // resumed, and every cell of the target is measured
		return r.visitsOf(t, cells, nil), nil
	}
	// An interrupt is no cell's fault: nothing is recorded for it, so that
	// --resume runs these cells.
	if loadgenErr != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fail(results.Failed, loadgenErr.Error())
		return nil, nil
	}
	r.progress.Phase(cells[0], "build "+t.Name)
	bases := map[string]*results.BaseImage{}
	for _, key := range t.Images() {
		b := r.base(ctx, key)
		if b.Used == "" {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fail(results.Skipped, fmt.Sprintf("base image %s (%s) unavailable: %s (the engine's words: base_images.%s.error in results.json)",
				key, b.Official, results.ShortCause(b.Error), key))
			return nil, nil
		}
		bases[key] = b
	}
	// A base a Dockerfile names directly (FROM python:3.12-slim) is not the
	// harness's to stand in for: the engine has it, or pulls it, or the
	// target is skipped naming it and the fix, before any build.
	for _, ref := range t.Undeclared() {
		if why := r.undeclaredBase(ctx, ref); why != "" {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fail(results.Skipped, fmt.Sprintf("its Dockerfile names %s in FROM, which is not under images: and %s; %s", ref, why, matrix.UndeclaredFix(ref)))
			return nil, nil
		}
	}
	img, failed, err := r.buildServices(ctx, t, bases)
	if err != nil {
		return nil, err
	}
	if failed != "" {
		fail(results.Failed, failed)
		return nil, nil
	}
	return r.visitsOf(t, cells, img), nil
}

// buildServices builds each service of t on the targets' engine, on the
// base images resolved in bases. failed says why a build failed; the
// error is set only when the run is interrupted.
func (r *runner) buildServices(ctx context.Context, t matrix.Target, bases map[string]*results.BaseImage) (img *results.Image, failed string, err error) {
	img = &results.Image{Bases: slices.Collect(maps.Values(bases)), Services: map[string]string{}}
	slices.SortFunc(img.Bases, func(a, b *results.BaseImage) int { return strings.Compare(a.Key, b.Key) })
	for _, svc := range t.Services {
		args := map[string]string{}
		for _, key := range svc.Images {
			args[strings.ToUpper(key)+"_IMAGE"] = bases[key].Used
		}
		name, tag := t.Name, imageTag(t, svc)
		if len(t.Services) > 1 {
			name = t.Name + "-" + svc.Name
		}
		logf, err := r.buildLog(name)
		if err != nil {
			return nil, "", err
		}
		started := time.Now()
		built, err := r.tg.eng.Build(ctx, engine.BuildSpec{Context: os.DirFS(svc.Build), Tag: tag, BuildArgs: args,
			Labels: map[string]string{engine.LabelRole: "target", engine.LabelTarget: t.Name}, Log: logf})
		logf.Close()
		if err == nil && !built.Cached && !built.Warm { // a warm rebuild teaches nothing about a first one
			r.times.Record(buildtime.Image, time.Since(started))
			fmt.Fprintf(r.log, "built image %s in %s\n", tag, time.Since(started).Round(time.Second))
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			what := "build failed"
			if len(t.Services) > 1 {
				what = "build of service " + svc.Name + " failed"
			}
			return nil, fmt.Sprintf("%s (log: %s): %v", what, logf.Name(), err), nil
		}
		img.Services[svc.Name] = built.ID
		if size, err := r.tg.eng.ImageSize(ctx, built.ID); err == nil {
			if img.Sizes == nil {
				img.Sizes = map[string]int64{}
			}
			img.Sizes[svc.Name] = size
		}
	}
	img.ID = img.Services[t.Entry]
	return img, "", nil
}

// undeclaredBase says why ref, a base image no images key declares, is not
// to be had ("" when the engine has it or pulled it).
func (r *runner) undeclaredBase(ctx context.Context, ref string) string {
	_, _, have, err := r.tg.eng.ImageLabels(ctx, ref)
	switch {
	case err != nil:
		return "the engine could not be asked for it: " + results.ShortCause(err.Error())
	case have:
		return ""
	case r.opt.NoPull:
		return "the engine does not have it (--no-pull)"
	}
	if err := r.tg.eng.Pull(ctx, ref); err != nil {
		return "the engine does not have it and could not pull it (" + results.ShortCause(err.Error()) + ")"
	}
	return ""
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
			r.record(rc)
			continue
		}
		if rc, done := r.keptCell(c); rc != nil {
			out = append(out, &visit{t: t, c: c, rc: rc, listed: true, done: done})
			continue
		}
		rc := newCell(c)
		rc.Generator.Version = r.versions[c.Generator]
		rc.Image = &results.Image{ID: img.ID, Bases: img.Bases, Services: img.Services, Sizes: img.Sizes}
		lim := limitsOf(t.Limits)
		var clamped string
		lim.NoFile, clamped = r.noFile(lim.NoFile)
		rc.Limits = &lim
		if clamped != "" {
			rc.Warnings = append(rc.Warnings, clamped)
		}
		out = append(out, &visit{t: t, c: c, rc: rc})
	}
	return out
}

// keptCell is the cell a resumed run measured, and whether it is done: ok
// with every trial (resume keeps no failed cell, and a partly measured one
// only when trials are interleaved).
func (r *runner) keptCell(c matrix.Cell) (rc *results.Cell, done bool) {
	rc = r.kept[c.ID()]
	if rc == nil {
		return nil, false
	}
	return rc, r.whole(rc)
}

// whole says whether a kept cell has every trial the matrix asks.
func (r *runner) whole(rc *results.Cell) bool { return len(rc.Trials) >= r.m.Load.Trials }

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
	defer r.sortCells(index)
	if !r.interleave {
		for _, v := range vs {
			if v.done {
				continue
			}
			if err := r.visit(ctx, v, r.m.Load.Trials, 1); err != nil {
				return err
			}
		}
		return nil
	}
	rng := rand.New(rand.NewPCG(r.seed, 0))
	groups := singletons(len(vs))
	if r.blocked {
		keys := make([]cellid.Key, len(vs))
		for i, v := range vs {
			keys[i] = v.c.Key()
		}
		groups = blocks(keys, r.m.RelativeTo)
	}
	for round := 1; round <= r.m.Load.Trials; round++ {
		for _, i := range blockPerm(rng, groups) {
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

// blocks groups the cells a run compares trial by trial: a control with
// its twin, a cell with its baseline under each relative (as
// analysis.Relatives pairs them), and so on transitively. Each group lists
// indexes into keys in ascending order; groups are ordered by their first
// index, so that cells compared with nothing are one group each, in order.
func blocks(keys []cellid.Key, rels []cellid.Relative) [][]int {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k.ID()] = i
	}
	parent := make([]int, len(keys))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	join := func(i int, k cellid.Key) {
		j, ok := at[k.ID()]
		if !ok {
			return
		}
		a, b := find(i), find(j)
		parent[max(a, b)] = min(a, b) // the root is the group's first index
	}
	for i, k := range keys {
		if k.Control {
			twin := k
			twin.Control = false
			join(i, twin)
			continue // a control is compared with its twin only
		}
		for _, rel := range rels {
			join(i, rel.Base(k))
		}
	}
	var out [][]int
	group := map[int]int{}
	for i := range keys {
		root := find(i)
		g, ok := group[root]
		if !ok {
			g = len(out)
			group[root] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}

// singletons is n groups of one, in order: no cell blocked with another.
func singletons(n int) [][]int {
	out := make([][]int, n)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}

// blockPerm is one round's order: the groups shuffled, each group's
// members shuffled and run back to back. With groups of one it is
// rng.Perm(n) itself (shuffling one member draws nothing), so an unblocked
// seed repeats the order it gave before blocking existed.
func blockPerm(rng *rand.Rand, groups [][]int) []int {
	var out []int
	for _, g := range rng.Perm(len(groups)) {
		for _, j := range rng.Perm(len(groups[g])) {
			out = append(out, groups[g][j])
		}
	}
	return out
}

// sortCells puts the recorded cells back in expansion order, so results.json
// lists them the same way whatever order they ran in.
func (r *runner) sortCells(index map[string]int) {
	slices.SortStableFunc(r.out.Cells, func(a, b *results.Cell) int { return index[a.ID()] - index[b.ID()] })
}

// visit runs trials trials of v (the first being trial number first) and
// records the outcome. It returns an error only when the run is interrupted.
func (r *runner) visit(ctx context.Context, v *visit, trials, first int) error {
	start := time.Now()
	err := r.runCell(ctx, v.t, v.c, v.rc, trials, first)
	v.rc.Seconds = roundTo(v.rc.Seconds+time.Since(start).Seconds(), 2)
	if ctx.Err() != nil {
		return ctx.Err() // an interrupted visit is not recorded: it measured nothing whole
	}
	units := 1
	if err != nil {
		// Not the cell's fault when the run's own load generator or network
		// is gone (removed by someone, engine restarted): stop the run with
		// one error rather than fail every remaining cell with the same one.
		if gone := r.infraGone(ctx); gone != nil {
			return gone
		}
		v.rc.Status, v.rc.Reason = results.Failed, err.Error()
		var te *trialError
		switch {
		case errors.As(err, &te):
			v.rc.Reason = fmt.Sprintf("trial %d: %v", te.n, te.err)
		case r.interleave:
			v.rc.Reason = fmt.Sprintf("trial %d: %v", first, err) // the visit failed before it measured
		}
		if r.interleave {
			units += r.m.Load.Trials - first // the visits it will not get
		}
		v.rc.Summary = nil
		v.done = true
	} else {
		v.rc.Status = results.OK
		v.done = first+trials > r.m.Load.Trials
	}
	if !v.listed {
		r.out.Cells = append(r.out.Cells, v.rc)
		v.listed = true
	}
	r.save()
	r.progress.Done(v.rc, units)
	return nil
}

func newCell(c matrix.Cell) *results.Cell {
	return &results.Cell{Target: c.Target, Variant: c.Variant, Scenario: c.Scenario, Params: c.Params, CPUs: c.CPUs, Generator: &results.Generator{Name: c.Generator},
		CPUSet: c.CPUSet.String(), LoadgenCPUSet: c.LoadgenSet.String(), Connections: c.Connections, Close: c.Close, Rate: c.Rate, Control: c.Control,
		Pinning: c.Pinning, Protocol: c.Protocol, Requests: c.Requests}
}

func (r *runner) scenario(name string) matrix.Scenario {
	for _, s := range r.m.Scenarios {
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

// member is one running container of a target.
type member struct {
	service string
	alias   string // <service>-<replica>
	addr    string // host:port readiness waits for; "" for none
	id      string
	stats   engine.Sampler
}

// deployment is the containers of one target for one cell, all pinned to
// the cell's cores.
type deployment struct {
	members []*member
	limits  matrix.Limits // of each container
}

// deploy starts every replica of every service in order. What it started
// is in the deployment even when it fails, for the caller to remove.
func (r *runner) deploy(ctx context.Context, t matrix.Target, c matrix.Cell, rc *results.Cell, d *deployment) error {
	r.visits++
	d.limits = t.Limits
	nofile, _ := r.noFile(t.Limits.NoFile)
	lay := layout(t, r.mode)
	for _, svc := range t.Services {
		for _, p := range lay[svc.Name] {
			m := &member{service: svc.Name, alias: p.alias}
			if svc.Name != t.Entry && svc.Port > 0 {
				m.addr = r.fromLoadgen(p)
			}
			// Unique per visit, so that a leftover of one visit is never
			// taken for the next one's container.
			name := fmt.Sprintf("webbench-%s-v%d-%s", r.id, r.visits, p.alias)
			id, err := r.tg.eng.Start(ctx, engine.ContainerSpec{
				Name: name, Image: rc.Image.Services[svc.Name], Env: env(t, svc, c, p, lay), CPUSet: c.CPUSet.String(), Files: r.serverFiles(c.Protocol),
				Network: r.targetNetwork(), Aliases: []string{svc.Name, p.alias}, Labels: r.labels("target", t.Name, c.ID()),
				Memory: t.Limits.MemoryBytes, Pids: t.Limits.Pids, NoFile: nofile,
			})
			m.id = id
			if id != "" {
				d.members = append(d.members, m)
				m.stats = r.tg.eng.Sample(ctx, id)
			}
			if err != nil {
				return fmt.Errorf("service %s: %w", m.alias, err)
			}
		}
	}
	return nil
}

func (r *runner) remove(ctx context.Context, d *deployment) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	for _, m := range d.members {
		if m.stats != nil {
			m.stats.Stop()
		}
		err := r.tg.eng.RemoveContainer(cctx, m.id)
		if err == nil { // confirm: the next visit must not share the cores with it
			if st, serr := r.tg.eng.State(cctx, m.id); serr == nil {
				err = fmt.Errorf("container %s is still there (%s) after its removal", m.alias, st)
			}
		}
		if err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
			r.leftover = errors.Join(r.leftover, err)
		}
	}
}

// runCell starts fresh containers of the target for the cell, warms them
// up and runs trials trials (numbered from first); the containers are
// removed before it returns.
func (r *runner) runCell(ctx context.Context, t matrix.Target, c matrix.Cell, rc *results.Cell, trials, first int) error {
	sc := r.scenario(c.Scenario)
	if r.leftover != nil {
		return fmt.Errorf("not measured beside what an earlier visit left running: %v", r.leftover)
	}
	if err := r.gen.pin(ctx, c.LoadgenSet.String()); err != nil {
		return err
	}
	rc.LoadgenCPUSet = r.gen.cores // where the engine says the generator runs
	d := &deployment{}
	defer r.remove(ctx, d)
	r.progress.Phase(c, "start")
	started := time.Now()
	if err := r.deploy(ctx, t, c, rc, d); err != nil {
		return err
	}
	url := fmt.Sprintf("%s://%s%s", scheme(c.Protocol), r.fromLoadgen(layout(t, r.mode)[t.Entry][0]), c.Subst(sc.Path))

	r.progress.Phase(c, "ready")
	if err := r.waitReady(ctx, d, url, cellid.Proto(c.Protocol)); err != nil {
		return err
	}
	rc.Image.RuntimeVersion = r.runtimeVersions(ctx, d)

	r.progress.Phase(c, "verify")
	// Asked as the cell's generator will ask: its answer's size is what
	// the bytes read under load are held to (a Connection: close answer
	// carries other headers than a keep-alive one, and an answer to ab's
	// HTTP/1.0 request other framing than one to an HTTP/1.1 request).
	tool := loadgen.Tools[c.Generator]
	http10 := loadgen.AsksHTTP10(tool)
	kind := probeHTTP
	if c.Close {
		kind |= probeClose
	}
	if http10 {
		kind |= probeHTTP10
	}
	resp, err := r.gen.probe(ctx, url, r.m.Load.Timeout, kind, cellid.Proto(c.Protocol))
	if err != nil {
		return err
	}
	problems, warnings := verify.Check(sc.Expect, resp, c.Subst)
	if resp.Error == "" {
		problems = append(problems, verify.Protocol(cellid.Proto(c.Protocol), http10, resp)...)
		rc.Negotiated = resp.Negotiated
	}
	rc.Warnings = append(rc.Warnings, warnings...)
	if len(problems) > 0 {
		return fmt.Errorf("verify %s: %s", url, strings.Join(problems, "; "))
	}
	rc.Startup = append(rc.Startup, roundTo(time.Since(started).Seconds(), 3))

	spec := r.spec(c, url, sc.Expect.Status)
	judge := loadgen.Judge{Connections: c.Connections, MaxErrorRate: r.m.Load.MaxErrorRate, AnswerBytes: resp.WireBytes, Rate: c.Rate}
	if c.Protocol != "" {
		// Over TLS the tools count bytes on different sides of it (wrk
		// the plaintext, bombardier the records and handshakes), and
		// HTTP/2 compresses headers per connection: no one answer's size
		// to hold them to.
		judge.AnswerBytes = 0
	}
	if r.m.Load.Warmup > 0 {
		r.progress.Phase(c, "warm-up")
	}
	if err := r.gen.warm(ctx, tool, spec, r.m.Load.Warmup); err != nil {
		return err
	}
	for k := first; k < first+trials; k++ {
		r.progress.Phase(c, fmt.Sprintf("trial %d/%d", k, r.m.Load.Trials))
		tr, res, warns, err := r.trial(ctx, d, tool, spec, c.Pinning == "")
		if err != nil {
			// A container that died explains a failed run best (OOM-killed…).
			if dead := r.allRunning(ctx, d, "during the trial"); dead != nil {
				err = dead
			}
			return &trialError{n: k, err: err}
		}
		problem, judged := res.Judge(judge)
		for _, w := range judged {
			warns = append(warns, fmt.Sprintf("trial %d: %s", k, w))
		}
		for _, w := range warns {
			if !slices.Contains(rc.Warnings, w) {
				rc.Warnings = append(rc.Warnings, w)
			}
		}
		rc.Trials = append(rc.Trials, tr) // kept even when it fails the cell: it shows what failed
		if problem != "" {
			if dead := r.allRunning(ctx, d, "during the trial"); dead != nil {
				problem = dead.Error() + "\n" + problem
			}
			return &trialError{n: k, err: errors.New(problem)}
		}
		rc.Summary = analysis.Summarize(rc.Trials, results.Aggregate(r.m.Load.Aggregate))
		if c.Rate == 0 { // at a fixed rate the ceiling says nothing: the rate bounds it
			analysis.JudgeBound(rc.Summary, r.ceilings[keyOf(c)], c.Pinning != "")
		} else {
			analysis.JudgeBound(rc.Summary, 0, c.Pinning != "")
		}
	}
	if err := r.allRunning(ctx, d, "during the trials"); err != nil {
		return err
	}
	return nil
}

// spec is the load of cell c at url, whose scenario expects status expect.
func (r *runner) spec(c matrix.Cell, url string, expect int) loadgen.Spec {
	return specOf(r.m, c, url, expect)
}

func specOf(m *matrix.Matrix, c matrix.Cell, url string, expect int) loadgen.Spec {
	load := matrix.CellLoad(m, c)
	return loadgen.Spec{URL: url, Connections: c.Connections, Duration: load.Duration, Requests: load.Requests,
		Timeout: load.Timeout, Expect: expect, Close: c.Close, Rate: c.Rate, Threads: m.Load.LoadgenCPUs, Protocol: cellid.Proto(c.Protocol)}
}

// Unsupported marks the cells whose load generator cannot measure them as
// the matrix asks (wrk given a request count, ab a duration, h2load
// keep-alive off…) as skipped, naming the setting; plan and run both call
// it, so that plan lists what run will skip.
func Unsupported(m *matrix.Matrix, cells []matrix.Cell) {
	for i, c := range cells {
		if c.Skip != "" {
			continue
		}
		tool, ok := loadgen.Tools[c.Generator]
		if !ok {
			cells[i].Skip = fmt.Sprintf("no load generator %q", c.Generator)
			continue
		}
		expect := 200
		for _, sc := range m.Scenarios {
			if sc.Name == c.Scenario {
				expect = sc.Expect.Status
			}
		}
		if why := tool.Unsupported(specOf(m, c, "", expect)); why != "" {
			cells[i].Skip = why
		}
	}
}

// trialError is a failure of measured trial n.
type trialError struct {
	n   int
	err error
}

func (e *trialError) Error() string { return fmt.Sprintf("trial %d: %v", e.n, e.err) }
func (e *trialError) Unwrap() error { return e.err }

// allRunning fails naming the first container of d that has stopped.
func (r *runner) allRunning(ctx context.Context, d *deployment, when string) error {
	for _, m := range d.members {
		st, err := r.tg.eng.State(ctx, m.id)
		if err != nil {
			return err
		}
		if !st.Running {
			who := "target"
			if len(d.members) > 1 {
				who = "service " + m.alias
			}
			how := st.String()
			if st.OOMKilled && d.limits.MemoryBytes > 0 {
				how = fmt.Sprintf("was OOM-killed at the %d MiB memory limit (%s)", d.limits.MemoryBytes>>20, st)
			}
			return fmt.Errorf("%s %s %s; last log lines:\n%s", who, how, when, r.lastLogs(ctx, m.id))
		}
	}
	return nil
}

// waitReady polls, from the load generator's container, each service that
// declares a port until it accepts a TCP connection, then the entry's url
// until it answers with any HTTP response; or fails saying why.
func (r *runner) waitReady(ctx context.Context, d *deployment, url, protocol string) error {
	deadline := time.Now().Add(r.m.Load.ReadyTimeout)
	pending := slices.Clone(d.members)
	lastErr := ""
	for {
		if err := r.allRunning(ctx, d, "before answering"); err != nil {
			return err
		}
		for len(pending) > 0 && pending[0].addr == "" {
			pending = pending[1:]
		}
		if len(pending) > 0 {
			m := pending[0]
			resp, err := r.gen.probe(ctx, m.addr, probeTimeout, probeTCP, "")
			if err != nil {
				return err
			}
			if resp.Error == "" {
				pending = pending[1:]
				continue
			}
			lastErr = fmt.Sprintf("service %s at %s: %s", m.alias, m.addr, resp.Error)
		} else {
			resp, err := r.gen.probe(ctx, url, probeTimeout, probeHTTP, protocol)
			if err != nil {
				return err
			}
			if resp.Error == "" {
				return nil
			}
			if verify.Untrusted(resp) {
				// It answered, with a certificate the run does not trust:
				// waiting will not change that.
				return fmt.Errorf("verify %s: %s", url, resp.Error)
			}
			lastErr = resp.Error
		}
		if time.Now().After(deadline) {
			id := d.members[len(d.members)-1].id
			if len(pending) > 0 {
				id = pending[0].id
			}
			return fmt.Errorf("not ready after %s (last error: %s); last log lines:\n%s", r.m.Load.ReadyTimeout, lastErr, r.lastLogs(ctx, id))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// runtimeVersions joins the distinct "runtime:" lines of the first replica
// of each service, in start order (e.g. "nginx/1.22.1 + go1.26.8").
func (r *runner) runtimeVersions(ctx context.Context, d *deployment) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range d.members {
		if seen[m.service] {
			continue
		}
		seen[m.service] = true
		logs, err := r.tg.eng.Logs(ctx, m.id, 200)
		if v := runtimeVersion(logs); err == nil && v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return strings.Join(out, " + ")
}

func (r *runner) lastLogs(ctx context.Context, id string) string {
	logs, err := r.tg.eng.Logs(context.WithoutCancel(ctx), id, 15)
	if err != nil {
		return "(no logs: " + err.Error() + ")"
	}
	if strings.TrimSpace(logs) == "" {
		return "(no output)"
	}
	return strings.TrimRight(logs, "\n")
}

// trial runs one measured run of the load generator; the samplers, running for the
// whole cell, say what CPU the target's containers (summed) and the load
// generator used, and the target's peak memory (summed over containers).
func (r *runner) trial(ctx context.Context, d *deployment, tool loadgen.Tool, s loadgen.Spec, apart bool) (results.Trial, loadgen.Result, []string, error) {
	start := time.Now()
	res, err := r.gen.run(ctx, tool, s)
	end := time.Now()
	if err != nil {
		return results.Trial{}, res, nil, err
	}
	var warnings []string
	var tCores float64
	var tMem, tSteady uint64
	measured := true
	services := map[string]*results.ServiceUsage{}
	for _, m := range d.members {
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
	if len(services) > 1 { // of a target of several services: nginx apart from its pool
		perService = map[string]results.ServiceUsage{}
		for name, u := range services {
			perService[name] = results.ServiceUsage{CPUCores: roundTo(u.CPUCores, 3), MemPeakMiB: roundTo(u.MemPeakMiB, 2)}
		}
	}
	lCores, ok := r.gen.cpu(start, end)
	if !ok {
		warnings = append(warnings, "trial too short for two stats samples: load generator CPU not measured")
	}
	started := start.UTC().Truncate(time.Millisecond)
	return results.Trial{
		StartedAt:          &started,
		Result:             resultOf(res),
		TargetCPUCores:     roundTo(tCores, 3),
		TargetMemPeakMiB:   roundTo(float64(tMem)/(1<<20), 2),
		TargetMemSteadyMiB: roundTo(float64(tSteady)/(1<<20), 2),
		LoadgenCPUCores:    roundTo(lCores, 3),
		GeneratorBound:     apart && lCores >= analysis.GeneratorBoundShare*float64(r.m.Load.LoadgenCPUs),
		Services:           perService,
	}, res, warnings, nil
}
