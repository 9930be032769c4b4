package study

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/internal/mdtable"
	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/results"
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

- Each claim names pairs of cells, A ÷ B, and what it says of the ratio. For every pair the run that
  holds both cells ok and matches the study's setup on most items is used; the others are listed.
- The ratio is the median of trial-by-trial ratios (the trials of a round ran together), with its 95%
  interval (min…max below six pairs); where the study kept its best run, the best trial of A over the
  best trial of B.
- The checklist holds the run to the study's setup: tool, load (connections, and -n or -d), pinning,
  cores, servers and their runtime, statistic, and an A/A control in the same run. An item the study
  does not state is shown, and not held against the run.
- **confirmed** or **contradicted** only when every item matches and the ratio lies beyond the run's
  A/A floor on one side of the claim, with its own interval on that side too. The floor is
  symmetric: r and 1/r read the same.
- **within noise** when every item matches but the ratio does not clear the floor, or its interval
  reaches across the claim's value.
- **not testable as stated** when an item does not match (the figures are then "measured instead"),
  or when no measurement can test the claim's wording.
- **not testable here** when the claim needs a system this machine cannot run; **not measured** when
  no committed run holds the cells. No claim is dropped.
- ○ marks a setup item the study does not state; ⚠ marks a run whose harness was built from a dirty tree or no recorded commit.
`
