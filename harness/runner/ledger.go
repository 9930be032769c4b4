package runner

import (
	"fmt"
	"io"
	"slices"

	"github.com/webbench/webbench/harness/internal/redact"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// ledger is a run's results as it goes: results.json, written again
// after every change, the cells an earlier run measured that a resumed
// run keeps, and the progress display, told of every cell done. It knows
// nothing of engines: the runner hands it what it measured.
type ledger struct {
	out      *results.Run
	kept     map[string]*results.Cell // by id: cells an earlier run measured, when resuming
	trials   int                      // the trials the matrix asks of a cell
	outDir   string                   // where results.json is written
	log      io.Writer
	progress Progress
	unsaved  error // why the last write of results.json failed; nil when it succeeded
}

// save writes results.json; a failure to write is reported but does not
// stop the run: the next visit tries again.
func (l *ledger) save() {
	// What engines and targets said may carry a host as it was given,
	// password included: results.json is committed.
	l.out.Stopped = redact.Text(l.out.Stopped)
	for _, c := range l.out.Cells {
		c.Reason = redact.Text(c.Reason)
		for i, w := range c.Warnings {
			c.Warnings[i] = redact.Text(w)
		}
	}
	for i, w := range l.out.Warnings {
		l.out.Warnings[i] = redact.Text(w)
	}
	l.unsaved = results.Write(l.outDir, l.out)
	if l.unsaved != nil {
		fmt.Fprintf(l.log, "error: writing results: %v\n", l.unsaved)
	}
}

func (l *ledger) record(c *results.Cell) {
	l.out.Cells = append(l.out.Cells, c)
	l.save()
	l.progress.Done(c, 1)
}

// list puts v's cell among the run's cells, once.
func (l *ledger) list(v *visit) {
	if !v.listed {
		l.out.Cells = append(l.out.Cells, v.rc)
		v.listed = true
	}
}

// savedTrial writes results.json once a trial of v is recorded, its cell
// partial (ok with its last trial), so that a run killed in a later trial
// (SIGKILL, a second Ctrl-C: nothing saves then) loses that trial alone:
// --resume keeps the trials recorded, and the cell is done only with
// every trial (whole). A visit that fails afterwards records the cell
// failed.
func (l *ledger) savedTrial(v *visit) {
	l.measured(v.rc)
	l.list(v)
	l.save()
}

// measured sets the status of rc, whose trials so far all passed: partial
// (with the trials asked) until it has every trial, then ok.
func (l *ledger) measured(rc *results.Cell) {
	rc.Status, rc.TrialsAsked, rc.Why = results.Measured(len(rc.Trials), l.trials), 0, ""
	if rc.Status == results.Partial {
		rc.TrialsAsked = l.trials
	}
}

// recordUnrun records cells that cannot run, with status and reason (a
// skipped cell keeps its own), without building anything; what a resumed
// run measured whole stays as it was.
func (l *ledger) recordUnrun(cells []matrix.Cell, status results.Status, reason string) {
	for _, c := range cells {
		rc, done := l.keptCell(c)
		switch {
		case done && c.Skip == "":
			continue
		case rc != nil: // partly measured: listed already
			rc.Status, rc.Reason, rc.Summary, rc.TrialsAsked, rc.Why = status, reason, nil, 0, ""
			continue
		}
		rc = newCell(c)
		if c.Skip != "" {
			rc.Status, rc.Reason = results.Skipped, c.Skip
		} else {
			rc.Status, rc.Reason = status, reason
		}
		l.record(rc)
	}
}

// keptCell is the cell a resumed run measured, and whether it is done: ok
// with every trial (resume keeps no failed cell; a partly measured one,
// saved after each trial, gets its other trials).
func (l *ledger) keptCell(c matrix.Cell) (rc *results.Cell, done bool) {
	rc = l.kept[c.ID()]
	if rc == nil {
		return nil, false
	}
	return rc, l.whole(rc)
}

// whole says whether a kept cell has every trial the matrix asks.
func (l *ledger) whole(rc *results.Cell) bool { return len(rc.Trials) >= l.trials }

// sortCells puts the recorded cells back in expansion order, so results.json
// lists them the same way whatever order they ran in.
func (l *ledger) sortCells(index map[string]int) {
	slices.SortStableFunc(l.out.Cells, func(a, b *results.Cell) int { return index[a.ID()] - index[b.ID()] })
}
