package study

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/internal/mdtable"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// runsSection lists the runs: when, where and by what they were measured,
// their design, and their widest A/A floor.
func runsSection(b *bytes.Buffer, runs []*Run) error {
	b.WriteString("## The runs\n\n")
	t := mdtable.New(b)
	t.Header("run", "started", "machine", "kernel", "harness", "per trial", "trials", "A/A floor")
	for _, r := range runs {
		e := r.Environment
		harness := e.HarnessVersion
		if d := r.Dirty(); d != "" {
			harness += " ⚠ " + d
		}
		floor := "no control"
		if n := analysis.Noise(r.Run); n > 0 {
			floor = fmt.Sprintf("±%.1f%%", 100*n)
		}
		t.Append(runLink(r), e.StartedAt.UTC().Format("2006-01-02 15:04"), mdtext.Text(fmt.Sprintf("%s, %d CPUs", e.CPUModel, e.OnlineCPUs)),
			mdtext.Text(e.Kernel), mdtext.Text(harness), mdtext.Text(r.Matrix.PerTrial()),
			fmt.Sprintf("%d, %s", r.Matrix.Load.Trials, r.Matrix.Order), floor)
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\nThe A/A floor is the widest of the run's controls in requests/s; a verdict uses the floor of its own cells' control where the run has one.\n\n")
	return nil
}

// driftSection lists every cell measured ok in more than one of the runs,
// with its median requests/s in each, so that a reader sees how far the
// same cell moved between runs.
func driftSection(b *bytes.Buffer, runs []*Run) error {
	seen := map[string][]*Run{}
	var ids []string
	for _, r := range runs {
		for _, c := range r.Cells {
			if c == nil || c.Status != results.OK {
				continue
			}
			id := c.ID()
			if seen[id] == nil {
				ids = append(ids, id)
			}
			seen[id] = append(seen[id], r)
		}
	}
	slices.Sort(ids)
	b.WriteString("## Drift: cells measured in more than one run\n\n")
	t := mdtable.New(b)
	t.Header("cell", "run", "median req/s", "started", "machine", "harness")
	rows := 0
	for _, id := range ids {
		if len(seen[id]) < 2 {
			continue
		}
		for _, r := range seen[id] {
			rows++
			e := r.Environment
			harness := e.HarnessVersion
			if r.Dirty() != "" {
				harness += " ⚠"
			}
			t.Append(mdtext.Code(id), runLink(r), num(median(r.cell(id), "rps")), e.StartedAt.UTC().Format("2006-01-02 15:04"),
				mdtext.Text(e.CPUModel), mdtext.Text(harness))
		}
	}
	if rows == 0 {
		b.WriteString("No cell was measured in more than one run.\n\n")
		return nil
	}
	if err := t.Render(); err != nil {
		return err
	}
	b.WriteString("\n")
	return nil
}

func reproduce(b *bytes.Buffer, f *File) {
	if len(f.Reproduce) == 0 {
		return
	}
	b.WriteString("## Reproduce\n\n```sh\n")
	for _, c := range f.Reproduce {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n\n")
}

// rules is how verdicts are computed, as the code computes them.
const rules = `## How verdicts are computed

- Each claim names pairs of cells, A ÷ B, and what it says of the ratio. A claim reads the runs of one
  machine: the one whose runs hold most of its pairs. For every pair the run of that machine that holds
  both cells ok and matches the study's setup on most items (then a clean build, then the latest) is
  used; the others, and runs of other machines, are listed.
- The ratio is the median of trial-by-trial ratios (the trials of a round ran together), with its 95%
  interval (min…max below six pairs); where the study kept its best run, the best trial of A over the
  best trial of B, read against a floor in the same statistic: the widest ratio a best-over-best of the
  A/A twins could give.
- Where the study shows one run's figure (statistic single), every trial here is one such run: the
  ratio is the median of the trial pairs, its interval their min…max (where one run's ratio could land),
  read against the A/A twins' widest trial pair.
- A one-cell test reads each cell by itself: no_errors holds that it recorded no failed request in any
  trial (no floor: a count of zero has no noise to clear); cpu_split is the server's CPU over the load
  generator's, cpu_busy their CPU together over the cores they ran on, both per trial and read against
  the floor their twins give in that figure.
- The A/A floor is the wider of A's and B's own controls; without either, the widest control of the
  run (marked borrowed). It is symmetric: r and 1/r read the same.
- The checklist holds the run to the study's setup: tool, load (connections, and -n or -d), pinning,
  cores, machine/OS, servers and their runtime, statistic, the generator not the bound, and an A/A
  control in the same run. study.yaml states each item or names it unstated; an unstated item cannot be
  shown to match, so the claim is not testable as stated.
- **confirmed** or **contradicted** only when every item is stated and matches and the ratio lies beyond
  the floor on one side of the claim, with its own interval on that side too; for "about", the whole
  interval inside the claim's band and the floor no wider than the band (confirmed), or the whole
  interval outside the band by more than the floor (contradicted).
- **within noise** when every item matches but the ratio does not clear the floor, or its interval
  reaches across the claim's value or band.
- **cannot tell** when every item matches but the figures cannot carry a reading: a floor of fewer than
  three pairs or of no spread at all, cells that drift between runs of the machine beyond both floors,
  or a run measured by a harness built from a dirty tree or no recorded commit.
- **not testable as stated** when an item does not match or is not stated (the figures are then
  "measured instead"), when no measurement can test the claim's wording (study.yaml's untestable), or
  when the claim is about one service alone and the measured cells ran another on its cores.
- **not testable here** when a cell the claim names was skipped in the runs (their reason is given), or
  a setup item no machine of the runs can meet (another OS, more cores, a comparison across machines).
  A not_testable_here written in study.yaml is a note, checked: one the runs contradict is an error.
- **not measured** when no committed run holds the cells. No claim is dropped.
- ○ marks a setup item the study does not state; ⚠ marks a run whose harness was built from a dirty tree or no recorded commit;
  ⚑ marks a claim whose figures rest on a defect of the seed's own record (named with the claim).
`

// floorFor is the run's A/A floor for a pair a ÷ b in metric, read in the
// statistic the pair is read in: the wider of a's and b's own controls,
// else (borrowed) the widest of the run's controls; false without any.
func floorFor(r *Run, metric, statistic string, a, b string) (Floor, bool) {
	var own, widest Floor
	for _, ctl := range r.Cells {
		if ctl == nil || !ctl.Control || ctl.Status != results.OK {
			continue
		}
		k := ctl.Key()
		k.Control = false
		twin := r.cell(k.ID())
		if twin == nil || twin.Status != results.OK {
			continue
		}
		f, ok := aaFloor(twin, ctl, metric, metricOf(metric, r, twin), statistic)
		if !ok {
			continue
		}
		if (f.Cell == a || f.Cell == b) && f.Factor > own.Factor {
			own = f
		}
		if f.Factor > widest.Factor {
			widest = f
		}
	}
	if own.Factor > 0 {
		return own, true
	}
	return widest, widest.Factor > 0
}

// aaFloor is how far a twin and its control read apart in the figure get
// reads. For a median, the 95% interval of their trial-by-trial ratios;
// for a single run, their min…max (any one pair could be the run shown). For a best-of-N (one trial
// of each side, chosen by requests/s), the widest ratio any such choice
// could give: in requests/s, the paired ratios' min…max bound it (the best
// of the twin is at most the largest paired ratio times its control's
// trial, hence times the control's best); in another metric, the best
// trial's figure may be any trial's, so every cross ratio counts.
func aaFloor(twin, ctl *results.Cell, metric string, get func(results.Trial) float64, statistic string) (Floor, bool) {
	var lo, hi float64
	n := min(len(twin.Trials), len(ctl.Trials))
	switch {
	case statistic == "best" && metric == "rps" || statistic == "single":
		// a single run's ratio is any one trial pair's: the twins' widest
		for i := range n {
			if d := get(ctl.Trials[i]); d > 0 {
				x := get(twin.Trials[i]) / d
				lo, hi = minPos(lo, x), max(hi, x)
			}
		}
	case statistic == "best":
		for i := range twin.Trials {
			for k := range ctl.Trials {
				if d := get(ctl.Trials[k]); d > 0 {
					x := get(twin.Trials[i]) / d
					lo, hi = minPos(lo, x), max(hi, x)
				}
			}
		}
	default:
		pr, ok := analysis.PairedBy(twin, ctl, get)
		if !ok {
			return Floor{}, false
		}
		lo, hi = pr.Lo, pr.Hi
	}
	if lo <= 0 || hi <= 0 {
		return Floor{}, false
	}
	return Floor{Factor: math.Max(hi, 1/lo), Cell: twin.ID(), N: n}, true
}

func minPos(lo, x float64) float64 {
	if lo == 0 || x < lo {
		return x
	}
	return lo
}

// drift lists the other runs of the measure's machine where cell A or B,
// measured ok, reads a median beyond both runs' A/A floors from the
// measure's own run. Runs of another machine are another machine's
// figures, not drift.
func drift(metric, statistic string, m *Measure, runs []*Run) []string {
	var out []string
	for _, id := range []string{m.A, m.B} {
		here := m.Run.cell(id)
		for _, r := range runs {
			other := r.cell(id)
			if r == m.Run || machine(r) != machine(m.Run) || other == nil || other.Status != results.OK || here.Status != results.OK {
				continue
			}
			f1, ok1 := floorFor(m.Run, metric, statistic, id, "")
			f2, ok2 := floorFor(r, metric, statistic, id, "")
			x, y := medianOf(here, metricOf(metric, m.Run, here)), medianOf(other, metricOf(metric, r, other))
			if !ok1 || !ok2 || x <= 0 || y <= 0 {
				continue
			}
			wide := Floor{Factor: math.Max(f1.Factor, f2.Factor)}
			if wide.Beyond(y / x) {
				out = append(out, fmt.Sprintf("%s reads %s in %s against %s here (%+.1f%%), beyond both runs' floors (±%.1f%%, ±%.1f%%)",
					id, num(y), r.Name, num(x), 100*(y/x-1), f2.Percent(), f1.Percent()))
			}
		}
	}
	return out
}

// unmeetable lists the setup items no machine of the runs can meet: an
// operating system none of them ran, more cores than any has (one more
// with the generator apart), a comparison across machines.
func unmeetable(s Setup, runs []*Run) []string {
	var out []string
	if s.Across == "machines" {
		out = append(out, "it compares machines, and a pair is two cells of one run on one machine")
	}
	maxCPUs, oses := 0, []string{}
	for _, r := range runs {
		maxCPUs = max(maxCPUs, r.Environment.OnlineCPUs)
		if os := r.Environment.OS; !contains(oses, os) {
			oses = append(oses, os)
		}
	}
	if s.OS != "" && !slices.ContainsFunc(oses, func(os string) bool { return osMatches(s.OS, os) }) {
		out = append(out, fmt.Sprintf("os: the study ran %s; the runs' machines ran %s", s.OS, strings.Join(oses, ", ")))
	}
	need := s.Cores
	if s.Pinning == "apart" {
		need++ // the generator's own core
	}
	if s.Cores > 0 && need > maxCPUs {
		out = append(out, fmt.Sprintf("cores: the study's server had %d (pinning %s); the runs' machines have at most %d CPUs", s.Cores, s.Pinning, maxCPUs))
	}
	return out
}

func osMatches(want, seen string) bool {
	return want != "" && strings.Contains(strings.ToLower(seen), want)
}

// skipped lists the cells a claim names (its pairs and needs) that no run
// measured and some run skipped, each with the run's reason.
func skipped(c *Claim, runs []*Run) []string {
	ids := slices.Clone(c.Needs)
	for _, p := range pairsOf(*c) {
		ids = append(ids, p.A, p.B)
	}
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		why := ""
		for _, r := range runs {
			cell := r.cell(id)
			if cell != nil && cell.Status != results.Skipped {
				why = ""
				break
			}
			if cell != nil && why == "" {
				why = fmt.Sprintf("%s skipped in %s: %s", id, r.Name, firstLine(cell.Reason))
			}
		}
		if why != "" {
			out = append(out, why)
		}
	}
	return out
}

func pairsOf(c Claim) []Pair { return units(c.Test) }

// medianOf is the median of get over c's trials.
func medianOf(c *results.Cell, get func(results.Trial) float64) float64 {
	var xs []float64
	for _, t := range c.Trials {
		xs = append(xs, get(t))
	}
	return stats.Describe(xs).Median
}
