// Package progress shows where a run is: a progress bar with the current
// cell, its phase and an ETA on a terminal, and one plain line per finished
// cell otherwise (CI logs, pipes).
package progress

import (
	"fmt"
	"github.com/webbench/webbench/harness/numfmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// For picks the display for w: a bar when w is a terminal.
func For(w io.Writer) interface {
	Start(int, time.Duration)
	Phase(matrix.Cell, string)
	Done(*results.Cell, int)
	Finish()
} {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &Bar{w: w}
	}
	return &Lines{w: w}
}

// Lines prints one line per finished cell.
type Lines struct {
	w     io.Writer
	total int
	done  int
	said  map[string]bool // reasons already printed in full
}

func (l *Lines) Start(units int, est time.Duration) {
	l.total = units
	fmt.Fprintf(l.w, "%d steps (cell visits), estimated %s\n", l.total, est.Round(time.Second))
}

func (l *Lines) Phase(matrix.Cell, string) {}

func (l *Lines) Done(c *results.Cell, units int) {
	l.done += units
	fmt.Fprintf(l.w, "[%d/%d] %s\n", l.done, l.total, summaryOnce(c, &l.said))
}

// summaryOnce is Summary, with a reason already said replaced by a
// pointer to it: a missing base image skips many cells for one reason.
func summaryOnce(c *results.Cell, said *map[string]bool) string {
	if c.Status == results.OK || c.Status == results.Partial || c.Reason == "" {
		return Summary(c)
	}
	if *said == nil {
		*said = map[string]bool{}
	}
	if (*said)[c.Reason] {
		return fmt.Sprintf("%s %s: the same reason as above", c.ID(), c.Status)
	}
	(*said)[c.Reason] = true
	return Summary(c)
}

func (l *Lines) Finish() {}

// Summary is a one-line account of a finished cell.
func Summary(c *results.Cell) string {
	switch {
	case (c.Status == results.OK || c.Status == results.Partial) && c.Summary != nil && len(c.Trials) > 0:
		last := c.Trials[len(c.Trials)-1]
		p99 := "—" // a generator that reports no percentiles (h2load)
		if last.LatencyMS.P99 > 0 {
			p99 = numfmt.Sig(last.LatencyMS.P99)
		}
		trial := strconv.Itoa(len(c.Trials))
		if c.Status == results.Partial {
			trial += " of " + strconv.Itoa(c.TrialsAsked)
		}
		return fmt.Sprintf("%s %s, trial %s: %s rps, p99 %s ms", c.ID(), c.Status, trial, numfmt.Sig(last.RPS), p99)
	default:
		reason := c.Reason
		if r := []rune(reason); len(r) > 160 {
			reason = string(r[:160]) + "…"
		}
		return fmt.Sprintf("%s %s: %s", c.ID(), c.Status, reason)
	}
}

// Bar is a terminal progress bar over cells.
type Bar struct {
	w    io.Writer
	bar  *progressbar.ProgressBar
	said map[string]bool
}

func (b *Bar) Start(units int, est time.Duration) {
	b.bar = progressbar.NewOptions(units,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionFullWidth(),
		progressbar.OptionSetDescription(fmt.Sprintf("estimated %s", est.Round(time.Second))),
	)
}

func (b *Bar) Phase(c matrix.Cell, phase string) {
	b.bar.Describe(fmt.Sprintf("%s: %s", c.ID(), phase))
}

func (b *Bar) Done(c *results.Cell, units int) {
	b.bar.Clear()
	fmt.Fprintf(b.w, "\r%s\n", summaryOnce(c, &b.said))
	b.bar.Add(units)
}

func (b *Bar) Finish() {
	b.bar.Finish()
	fmt.Fprintln(b.w)
}
