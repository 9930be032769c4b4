package study

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// Verdict is what the committed runs say of a claim. Only Confirmed and
// Contradicted judge the claim itself, and only when every item of the
// setup-match checklist is stated and matches, the run's A/A floor is one
// to read against, and the difference lies beyond it.
type Verdict string

// Verdicts, in the order a summary counts them.
const (
	Confirmed     Verdict = "confirmed"
	Contradicted  Verdict = "contradicted"
	WithinNoise   Verdict = "within noise"           // the setup matches; the difference does not clear the floor
	CannotTell    Verdict = "cannot tell"            // the setup matches, but the data cannot carry a reading
	NotAsStated   Verdict = "not testable as stated" // the closest run differs in setup, or no measurement can test the wording
	NotHere       Verdict = "not testable here"      // a cell skipped here, or a setup item no machine of the runs can meet
	NotMeasured   Verdict = "not measured"           // no committed run has the cells
	verdictsCount         = 7
)

// Verdicts lists the kinds in summary order.
var Verdicts = []Verdict{Confirmed, Contradicted, WithinNoise, CannotTell, NotAsStated, NotHere, NotMeasured}

// Measure is one pair of a claim's test in the run that stands closest to
// the study's setup.
type Measure struct {
	Pair
	Run       *Run
	Ratio     Ratio
	Floor     Floor
	HasFloor  bool
	Checklist []Item
	Reads     Verdict  // what the figures say alone, against the floor
	Failed    string   // with expect fails: how cell A ended
	Drift     []string // other runs of this machine where A or B disagrees beyond both floors
	Doubts    []string // why the data cannot carry a reading: a thin floor, drift, a dirty build
	Also      []string // the other runs that hold the pair
}

// label names the pair as A ÷ B, or the one cell of a one-cell test.
func (p Pair) label() string {
	if p.B == "" {
		return p.A
	}
	return p.A + " ÷ " + p.B
}

// Missing is a pair no run measured, and why.
type Missing struct {
	Pair
	Why string
}

// Judgement is a claim's verdict and what it rests on.
type Judgement struct {
	Claim    *Claim
	Setup    Setup
	Verdict  Verdict
	Why      string
	Measures []Measure
	Missing  []Missing
	// Here are the reasons no run here can test the claim: setup items
	// no machine of the runs can meet, and cells the runs skipped.
	Here []string
	// Shared are the measured cells whose figure includes another service
	// on the cores of the one the claim is about alone (Claim.Alone).
	Shared []string
	// Err is a fault of study.yaml that the runs show: a not_testable_here
	// they contradict.
	Err *matrix.Error
}

// Judge computes every claim's verdict from the runs. No verdict is read
// from the file: study.yaml states claims and cells, never outcomes.
func Judge(f *File, runs []*Run) []Judgement {
	out := make([]Judgement, 0, len(f.Claims))
	for i := range f.Claims {
		out = append(out, judge(f, &f.Claims[i], runs))
	}
	return out
}

func judge(f *File, c *Claim, runs []*Run) Judgement {
	j := Judgement{Claim: c, Setup: merged(f.Setup, c.Setup)}
	if c.Test != nil {
		j.Measures, j.Missing = measureOnOneMachine(j.Setup, c.Test, runs)
	}
	j.Here = append(unmeetable(j.Setup, runs), skipped(c, runs)...)
	j.Shared = shared(c, runs)
	j.Verdict, j.Why = decide(c, j)
	if c.NotTestableHere != "" && j.Verdict != NotHere {
		at := c.reasonAt
		j.Err = &matrix.Error{File: at.file, Line: at.line, Col: at.col, Field: at.field,
			Msg: fmt.Sprintf("claim %s: the runs contradict it: they read %s (%s); remove it, or name the cells (needs, test) or the setup item that cannot be had here",
				c.ID, j.Verdict, firstLine(j.Why))}
	}
	return j
}

// decide turns the measures into the claim's verdict.
func decide(c *Claim, j Judgement) (Verdict, string) {
	switch {
	case c.Untestable != "":
		return NotAsStated, c.Untestable
	case len(j.Shared) > 0:
		// no run here, nor one with the skipped cells, measures the
		// service alone: the cells' own layout says so
		return NotAsStated, fmt.Sprintf("it is about %s alone, and the measured figure includes another service on its cores: %s",
			c.Alone, strings.Join(j.Shared, "; "))
	case len(j.Here) > 0:
		return NotHere, "cannot be had here: " + strings.Join(j.Here, "; ")
	case c.Test == nil:
		return NotMeasured, "no committed run has cells that test it"
	case len(j.Measures) == 0:
		return NotMeasured, "no committed run holds its cells"
	}
	var off, unstated, doubts []string
	for _, m := range j.Measures {
		for _, it := range m.Checklist {
			switch {
			case it.NotStated && !contains(unstated, it.Name):
				unstated = append(unstated, it.Name)
			case !it.OK && !it.NotStated && !contains(off, it.Name):
				off = append(off, it.Name)
			}
		}
		for _, d := range m.Doubts {
			doubts = append(doubts, m.label()+": "+d)
		}
	}
	var why []string
	if len(off) > 0 {
		why = append(why, "the closest run differs from the study in "+strings.Join(off, ", "))
	}
	if len(unstated) > 0 {
		why = append(why, "the study does not state its "+strings.Join(unstated, ", ")+", so no run can be shown to match it")
	}
	switch {
	case len(why) > 0:
		return NotAsStated, strings.Join(why, "; ")
	case len(j.Missing) > 0:
		return NotAsStated, fmt.Sprintf("%d of its %d pairs were not measured", len(j.Missing), len(units(c.Test)))
	case len(doubts) > 0:
		return CannotTell, "every setup item matches, but " + strings.Join(doubts, "; ")
	}
	reads := map[Verdict]int{}
	for _, m := range j.Measures {
		reads[m.Reads]++
	}
	switch {
	case reads[Contradicted] > 0:
		return Contradicted, "every setup item matches, and the difference is beyond the run's A/A floor"
	case reads[Confirmed] == len(j.Measures):
		return Confirmed, "every setup item matches, and the difference is beyond the run's A/A floor"
	}
	return WithinNoise, "every setup item matches, but the difference does not clear the run's A/A floor"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// machine names the machine a run measured on: a claim reads the runs of
// one machine, so that no verdict rests on two machines' figures at once.
func machine(r *Run) string {
	e := r.Environment
	return fmt.Sprintf("%s, %d CPUs", e.CPUModel, e.OnlineCPUs)
}

// measureOnOneMachine measures every pair on the machine whose runs hold
// the most pairs (then match the setup best, then the latest run); runs
// of other machines that hold a pair are listed beside it.
func measureOnOneMachine(s Setup, t *Test, runs []*Run) ([]Measure, []Missing) {
	var order []string
	by := map[string][]*Run{}
	for _, r := range runs {
		k := machine(r)
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], r)
	}
	var best []Measure
	bestScore := []int{-1}
	for _, k := range order {
		var ms []Measure
		total := 0
		for _, p := range units(t) {
			if m, ok := measure(s, t, p, by[k]); ok {
				ms = append(ms, m)
				total += score(m)
			}
		}
		if sc := []int{len(ms), total}; slices.Compare(sc, bestScore) > 0 {
			best, bestScore = ms, sc
		}
	}
	var missed []Missing
	for _, p := range units(t) {
		i := slices.IndexFunc(best, func(m Measure) bool { return m.Pair == p })
		var elsewhere []string
		for _, r := range runs {
			if _, ok := read(s, t, p, r); ok && (i < 0 || machine(r) != machine(best[i].Run)) {
				elsewhere = append(elsewhere, r.Name+" (another machine: "+machine(r)+")")
			}
		}
		switch {
		case i >= 0:
			best[i].Also = append(best[i].Also, elsewhere...)
		case len(elsewhere) > 0:
			missed = append(missed, Missing{Pair: p, Why: "measured only on another machine than the claim's other pairs, in " + strings.Join(elsewhere, ", ")})
		default:
			missed = append(missed, Missing{Pair: p, Why: missing(p, runs)})
		}
	}
	return best, missed
}

// measure finds the run that holds the pair and stands closest to the
// setup (most checklist items matching, then a clean build, then the
// latest), and reads it.
func measure(s Setup, t *Test, p Pair, runs []*Run) (Measure, bool) {
	var best *Measure
	var also []string
	for _, r := range runs {
		m, ok := read(s, t, p, r)
		if !ok {
			continue
		}
		also = append(also, r.Name)
		if best == nil || closer(m, *best) {
			best = &m
		}
	}
	if best == nil {
		return Measure{}, false
	}
	for _, name := range also {
		if name != best.Run.Name {
			best.Also = append(best.Also, name)
		}
	}
	best.Drift = drift(t.Metric, s.Statistic, best, runs)
	best.Doubts = doubts(*best)
	return *best, true
}

func closer(m, than Measure) bool {
	clean := func(m Measure) int {
		if m.Run.Dirty() == "" {
			return 1
		}
		return 0
	}
	if c := cmp.Compare(score(m), score(than)); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(clean(m), clean(than)); c != 0 {
		return c > 0
	}
	return m.Run.Environment.StartedAt.After(than.Run.Environment.StartedAt)
}

func score(m Measure) int {
	n := 0
	for _, it := range m.Checklist {
		if it.OK && !it.NotStated {
			n++
		}
	}
	return n
}

// MinFloorPairs is the fewest A/A pairs a floor is read from: below it, one
// or two draws of the noise say nothing of its width.
const MinFloorPairs = 3

// doubts are why a measure's figures cannot carry a reading although the
// setup matches: a floor too thin to mean anything (too few pairs, or no
// spread at all, which no timed measurement gives), drift of its cells
// between runs of one machine beyond both floors (the floor then
// understates the machine's noise), and a harness no commit records.
func doubts(m Measure) []string {
	var out []string
	if m.HasFloor && m.Floor.N < MinFloorPairs {
		out = append(out, fmt.Sprintf("its A/A floor rests on %d pair(s), fewer than %d", m.Floor.N, MinFloorPairs))
	}
	if m.HasFloor && m.Floor.Factor-1 < 1e-9 {
		out = append(out, "its A/A floor is ±0.0%: twin trials that agree exactly are not a measurement of noise")
	}
	if len(m.Drift) > 0 {
		out = append(out, fmt.Sprintf("its cells drift between runs of this machine beyond both floors (%d)", len(m.Drift)))
	}
	if d := m.Run.Dirty(); d != "" {
		out = append(out, fmt.Sprintf("%s was measured by a harness %s (%s)", m.Run.Name, d, m.Run.Environment.HarnessVersion))
	}
	return out
}

// read measures the pair in one run; false when the run lacks a cell or,
// except for expect fails, either cell is not ok.
func read(s Setup, t *Test, p Pair, r *Run) (Measure, bool) {
	if p.B == "" {
		return readCell(s, t, p, r)
	}
	a, b := r.cell(p.A), r.cell(p.B)
	if a == nil || b == nil || b.Status != results.OK || a.Status == results.Skipped {
		return Measure{}, false
	}
	m := Measure{Pair: p, Run: r}
	m.Floor, m.HasFloor = floorFor(r, t.Metric, s.Statistic, p.A, p.B)
	if t.Expect == "fails" {
		m.Failed = failure(a)
		m.Reads = readsFails(a, b, r.Matrix.Load.MaxErrorRate)
	} else {
		if a.Status != results.OK {
			return Measure{}, false
		}
		ratio, ok := pairRatio(a, b, t.Metric, s.Statistic)
		if !ok {
			return Measure{}, false
		}
		m.Ratio = ratio
		if m.HasFloor {
			m.Reads = readRatio(t, ratio, m.Floor)
		}
	}
	m.Checklist = checklist(s, r, a, b, m.Floor, m.HasFloor, true)
	return m, true
}

// readCell measures a one-cell test in one run. no_errors reads the
// cell's failed requests over every trial: none confirms, any
// contradicts, with no floor (a count of zero has no noise to clear); a
// cell that failed without a failed request recorded (a build, a start)
// is not a reading. A one-cell metric reads the cell's own figure against
// the claim, beyond the floor its twin and control give in that figure.
func readCell(s Setup, t *Test, p Pair, r *Run) (Measure, bool) {
	a := r.cell(p.A)
	if a == nil || a.Status == results.Skipped {
		return Measure{}, false
	}
	m := Measure{Pair: p, Run: r}
	if t.Expect == "no_errors" {
		n := failedRequests(a)
		if a.Status != results.OK && n == 0 {
			return Measure{}, false
		}
		m.Failed, m.Reads = failure(a), Contradicted
		if a.Status == results.OK && n == 0 {
			m.Reads = Confirmed
		}
		m.Checklist = checklist(s, r, a, a, Floor{}, false, false)
		return m, true
	}
	if a.Status != results.OK {
		return Measure{}, false
	}
	ratio, ok := cellRatio(a, metricOf(t.Metric, r, a), s.Statistic)
	if !ok {
		return Measure{}, false
	}
	m.Ratio = ratio
	m.Floor, m.HasFloor = floorFor(r, t.Metric, s.Statistic, p.A, "")
	if m.HasFloor {
		m.Reads = readRatio(t, ratio, m.Floor)
	}
	m.Checklist = checklist(s, r, a, a, m.Floor, m.HasFloor, true)
	return m, true
}

// failedRequests are a cell's failed requests over every trial it
// recorded (a failed cell's summary may count more than its trials).
func failedRequests(c *results.Cell) int64 {
	var n int64
	for _, t := range c.Trials {
		n += t.Errors
	}
	if c.Summary != nil {
		n = max(n, c.Summary.Errors)
	}
	return n
}

// units are what a test reads one by one: its pairs, or its cells (as a
// pair with no B).
func units(t *Test) []Pair {
	if t == nil {
		return nil
	}
	if len(t.Cells) == 0 {
		return t.Pairs
	}
	out := make([]Pair, 0, len(t.Cells))
	for _, c := range t.Cells {
		out = append(out, Pair{A: c})
	}
	return out
}

// metricOf reads metric from a trial of cell c of run r. The one-cell
// metrics set the cell's two sides against each other: cpu_split is the
// server's CPU over the load generator's, cpu_busy their CPU together
// over the cores they ran on (the machine's when neither was pinned).
func metricOf(metric string, r *Run, c *results.Cell) func(results.Trial) float64 {
	switch metric {
	case "cpu_split":
		return func(t results.Trial) float64 { return perSecond(t.TargetCPUCores, t.LoadgenCPUCores) }
	case "cpu_busy":
		n := float64(coresUsed(r, c))
		return func(t results.Trial) float64 { return perSecond(t.TargetCPUCores+t.LoadgenCPUCores, n) }
	}
	return metrics[metric]
}

// coresUsed are the cores a cell's server and load generator ran on: the
// machine's when neither was pinned, the server's when they shared them,
// both sets apart.
func coresUsed(r *Run, c *results.Cell) int {
	switch c.Pinning {
	case cellid.PinNone:
		return r.Environment.OnlineCPUs
	case cellid.PinTogether:
		return c.Cores()
	}
	if set, err := cpuset.Parse(c.LoadgenCPUSet); err == nil && len(set) > 0 {
		return c.Cores() + len(set)
	}
	return c.Cores() + r.Matrix.Load.LoadgenCPUs
}

// pairRatio is a ÷ b in metric as the study's statistic reads it: for a
// single run, every trial pair is one run's ratio, so the interval is
// their min…max (where one run could land), not the median's CI.
func pairRatio(a, b *results.Cell, metric, statistic string) (Ratio, bool) {
	if statistic != "single" {
		return ratio(a, b, metric, statistic)
	}
	get := metrics[metric]
	var xs []float64
	for i := range min(len(a.Trials), len(b.Trials)) {
		if d := get(b.Trials[i]); d > 0 {
			xs = append(xs, get(a.Trials[i])/d)
		}
	}
	return spread(xs, statistic)
}

// cellRatio is a one-cell figure over the cell's trials: its best trial
// (by requests/s) where the study kept its best, else the median with its
// CI (min…max below six trials, and always for a single run).
func cellRatio(c *results.Cell, get func(results.Trial) float64, statistic string) (Ratio, bool) {
	if statistic == "best" {
		if t := best(c); t != nil && get(*t) > 0 {
			v := get(*t)
			return Ratio{Value: v, Lo: v, Hi: v, N: 1}, true
		}
		return Ratio{}, false
	}
	var xs []float64
	for _, t := range c.Trials {
		if x := get(t); x > 0 && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	return spread(xs, statistic)
}

func spread(xs []float64, statistic string) (Ratio, bool) {
	if len(xs) == 0 {
		return Ratio{}, false
	}
	d := stats.Describe(xs)
	r := Ratio{Value: d.Median, Lo: d.Min, Hi: d.Max, N: d.N}
	if d.HasCI && statistic != "single" {
		r.Lo, r.Hi, r.HasCI = d.Lo, d.Hi, true
	}
	return r, true
}

// shared lists the cells a claim about one service alone names that a
// run measured with another service of the target on that service's
// cores: the cell's figure is then theirs together.
func shared(c *Claim, runs []*Run) []string {
	if c.Alone == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range units(c.Test) {
		for _, id := range []string{p.A, p.B} {
			for _, r := range runs {
				cell := r.cell(id)
				if id == "" || seen[id] || cell == nil || cell.Status != results.OK {
					continue
				}
				if with := beside(cell, c.Alone); len(with) > 0 {
					seen[id] = true
					out = append(out, fmt.Sprintf("%s ran %s with %s on the same cores (%s)", id, c.Alone, strings.Join(with, ", "), r.Name))
				}
			}
		}
	}
	return out
}

// beside are the other services of cell c that ran on cores of service
// name: each on the cores the cell records for it, else on the cell's.
func beside(c *results.Cell, name string) []string {
	services := map[string]bool{}
	for _, t := range c.Trials {
		for s := range t.Services {
			services[s] = true
		}
	}
	if !services[name] {
		return nil
	}
	cores := func(s string) cpuset.Set {
		spec, ok := c.ServiceCPUSets[s]
		if !ok {
			spec = c.CPUSet
		}
		set, _ := cpuset.Parse(spec)
		return set
	}
	var out []string
	for _, s := range slices.Sorted(maps.Keys(services)) {
		if a, b := cores(name), cores(s); s != name && (len(a) == 0 || len(b) == 0 || cpuset.Overlaps(a, b)) {
			out = append(out, s)
		}
	}
	return out
}

func failure(c *results.Cell) string {
	switch {
	case c.Status == results.Failed:
		return "failed: " + c.Reason
	case failedRequests(c) > 0:
		return fmt.Sprintf("ok, with %d failed requests over %d trials", failedRequests(c), len(c.Trials))
	}
	return fmt.Sprintf("ok, no failed request in %d trials", len(c.Trials))
}

// readsFails: A fails when the cell failed, or when the trials behind its
// headline (the best one, where the study kept its best) had more errors
// than the run allows; B must have none of that.
func readsFails(a, b *results.Cell, limit float64) Verdict {
	aFails := a.Status == results.Failed || a.Summary != nil && a.Summary.ErrorRate > limit
	bClean := b.Summary != nil && b.Summary.ErrorRate <= limit
	switch {
	case aFails && bClean:
		return Confirmed
	case !aFails:
		return Contradicted
	}
	return WithinNoise
}

func value(t *Test) float64 {
	if t.Value == 0 {
		return 1
	}
	return t.Value
}

// readRatio holds a ratio and its interval to the claim, against the floor.
func readRatio(t *Test, r Ratio, f Floor) Verdict {
	if t.Expect == "about" {
		return readsAbout(t, r, f)
	}
	return intervalAgrees(t, r, reads(t, r.Value, f))
}

// reads holds ratio r to a greater or less claim: beyond the floor on the
// claim's side confirms it, beyond it on the other side contradicts it.
func reads(t *Test, r float64, f Floor) Verdict {
	v := value(t)
	above := f.Beyond(r/v) && r > v
	below := f.Beyond(r/v) && r < v
	if t.Expect == "less" {
		above, below = below, above
	}
	switch {
	case above:
		return Confirmed
	case below:
		return Contradicted
	}
	return WithinNoise
}

// readsAbout holds a ratio to "about v within ±tolerance". It confirms only
// when the ratio's whole interval lies inside the claim's band, the floor
// is no wider than the band (a run noisier than the claim's slack cannot
// place the ratio in it) and, for v ≠ 1, the ratio clears the floor from
// 1; it contradicts only when the whole interval lies outside the band by
// more than the floor.
func readsAbout(t *Test, r Ratio, f Floor) Verdict {
	v := value(t)
	band, fl := math.Log(1+t.Tolerance), math.Log(f.Factor)
	lo, hi := math.Log(r.Lo/v), math.Log(r.Hi/v)
	switch {
	case lo > band+fl || hi < -(band+fl):
		return Contradicted
	case lo >= -band && hi <= band && fl <= band && (v == 1 || f.Beyond(r.Value)):
		return Confirmed
	}
	return WithinNoise
}

// intervalAgrees keeps a greater or less reading only when the ratio's own
// interval (its 95% CI, or min…max below six pairs) lies on that side of
// the claim's value too: a median beyond the A/A floor whose pairs spread
// across the value (1.12×, 0.84…1.34) is within noise. A best-over-best
// ratio is one draw, with no interval: the floor alone decides.
func intervalAgrees(t *Test, r Ratio, v Verdict) Verdict {
	if r.N <= 1 || v == WithinNoise {
		return v
	}
	if val := value(t); r.Lo > val || r.Hi < val {
		return v
	}
	return WithinNoise
}

// missing says why no run measured the pair: the cells' own reasons where
// a run skipped or failed them.
func missing(p Pair, runs []*Run) string {
	var why []string
	for _, r := range runs {
		for _, id := range []string{p.A, p.B} {
			if c := r.cell(id); id != "" && c != nil && c.Status != results.OK && c.Reason != "" {
				why = append(why, fmt.Sprintf("%s %s in %s: %s", id, c.Status, r.Name, firstLine(c.Reason)))
			}
		}
		if len(why) > 0 {
			return strings.Join(why, "; ")
		}
	}
	if p.B == "" {
		return "no committed run has the cell"
	}
	return "no committed run has both cells"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}
