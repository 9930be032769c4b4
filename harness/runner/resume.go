package runner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// resume takes over an earlier run's results, of matrix m: the
// environment it started in, its seed and order (which the runner takes
// too), its ceilings, and its cells ok with every trial
// or with some (interleaved, or killed in the middle of a cell's trials:
// they get the rest); failed cells are measured again, skipped ones judged
// again.
func (l *ledger) resume(prev *results.Run, cells map[string]bool, m *matrix.Matrix) {
	env := l.out.Environment
	l.out.Environment = prev.Environment
	l.out.Environment.Resumed = append(prev.Environment.Resumed, env.StartedAt)
	l.out.Environment.HarnessVersion = env.HarnessVersion
	l.out.Images = prev.Images
	if l.out.Images == nil {
		l.out.Images = map[string]*results.BaseImage{}
	}
	l.out.Matrix.Order, l.out.Matrix.Seed = prev.Matrix.Order, prev.Matrix.Seed
	l.out.Matrix.Blocked = prev.Matrix.Blocked
	l.out.Ceilings = slices.DeleteFunc(slices.Clone(prev.Ceilings), func(c results.Ceiling) bool { return c.Error != "" })
	kept, warnings := keptCells(prev.Cells, m, cells)
	l.kept = map[string]*results.Cell{}
	for _, c := range kept {
		l.kept[c.ID()] = c
		l.measured(c) // partial or ok by the trials this run asks
	}
	l.out.Cells = append(l.out.Cells, kept...)
	for _, w := range warnings {
		fmt.Fprintln(l.log, w)
	}
	l.out.Warnings = append(l.out.Warnings, warnings...)
}

// keptCells is what a resume keeps of an earlier run's cells, in their
// order: those finished or partly measured that the matrix makes (made,
// by id) and that hold up (see untrusted); each other one that was
// measured is named in a warning, to be measured again. Skipped cells and
// cells with no trial are judged again without a word.
func keptCells(prev []*results.Cell, m *matrix.Matrix, made map[string]bool) (kept []*results.Cell, warnings []string) {
	ids := map[string]bool{}
	for _, c := range prev {
		if c == nil || c.Status == results.Skipped || len(c.Trials) == 0 && (c.Status == results.OK || c.Status == results.Partial) {
			continue
		}
		if why := untrusted(c, m, made, ids); why != "" {
			warnings = append(warnings, fmt.Sprintf("resume: cell %s of results.json not kept (%s); it is measured again", c.ID(), why))
			continue
		}
		ids[c.ID()] = true
		kept = append(kept, c)
	}
	return kept, warnings
}

// keptImages refuses a resume whose partly measured cells ran on images
// target, the targets' engine, no longer has (the run was made on another engine,
// or its images were removed since): their remaining trials would measure
// another build, or fail one by one and take the kept cells' figures with
// them. Cells measured whole need no image and are not asked about.
func (l *ledger) keptImages(ctx context.Context, target *side) error {
	var gone []string
	for _, id := range slices.Sorted(maps.Keys(l.kept)) {
		c := l.kept[id]
		if c.Image == nil || l.whole(c) {
			continue
		}
		refs := slices.Sorted(maps.Values(c.Image.Services))
		if len(refs) == 0 {
			refs = []string{c.Image.ID}
		}
		for _, ref := range slices.Compact(refs) {
			_, _, ok, err := target.eng.Images.ImageLabels(ctx, ref)
			if err != nil {
				return err
			}
			if !ok {
				gone = append(gone, fmt.Sprintf("%s (image %s)", id, shortID(ref)))
				break
			}
		}
	}
	if len(gone) == 0 {
		return nil
	}
	engine := "the targets' engine"
	if target.name != "" {
		engine += " " + target.name
	}
	return fmt.Errorf("cannot resume: %d cell(s) measured in part ran on images %s no longer has: %s. "+
		"Their remaining trials would measure another build (the run was made on another engine, or its images were removed since), "+
		"so nothing was measured and results.json is as it was; resume on the engine that has the images, or measure again with --force",
		len(gone), engine, strings.Join(gone, ", "))
}

// shortID is an image id as docker images shows it: 12 hex digits.
func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// untrusted says why a cell of the run being resumed is not kept as
// measured ("" when it is): results.json is a file anyone can edit, so a
// cell is kept only if the matrix makes it, once, ok or partial, with no more trials
// than asked, each consistent with itself and with the load asked. A
// failed cell is measured again: a failure cannot be checked from the
// file, and measuring it again costs one visit.
func untrusted(c *results.Cell, m *matrix.Matrix, made, kept map[string]bool) string {
	load := m.Load.Counted(c.Requests) // the requests axis's count, in place of the load's
	switch {
	case !made[c.ID()]:
		return "the matrix makes no such cell"
	case kept[c.ID()]:
		return "a second copy of a cell"
	case c.Status == results.Failed:
		return "it failed"
	case c.Status != results.OK && c.Status != results.Partial:
		return fmt.Sprintf("unknown status %q", c.Status)
	case len(c.Trials) > load.Trials:
		return fmt.Sprintf("%d trials where the matrix asks %d", len(c.Trials), load.Trials)
	}
	for i, t := range c.Trials {
		switch {
		case t.Seconds <= 0 || t.Requests < 0 || t.Errors < 0 || math.IsNaN(t.RPS) || math.IsInf(t.RPS, 0) || t.RPS < 0:
			return fmt.Sprintf("trial %d has impossible figures", i+1)
		case math.Abs(t.RPS-float64(t.Requests)/t.Seconds) > 0.01*t.RPS+1:
			return fmt.Sprintf("trial %d: %s rps is not its %d requests in %.3g s", i+1, numfmt.Sig(t.RPS), t.Requests, t.Seconds)
		case load.Requests > 0 && t.Requests+t.Errors != load.Requests:
			return fmt.Sprintf("trial %d: %d requests where the matrix asks %d", i+1, t.Requests+t.Errors, load.Requests)
		case load.Requests == 0 && (t.Seconds < 0.5*load.Duration.Seconds() || t.Seconds > 2*load.Duration.Seconds()+5):
			return fmt.Sprintf("trial %d lasted %.3g s where the matrix asks %s", i+1, t.Seconds, load.Duration)
		}
	}
	if err := c.Check(); err != nil { // derived figures the file forged (results.Inconsistency)
		return err.Error()
	}
	return ""
}
