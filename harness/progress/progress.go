// Package progress shows where a run is: a progress bar with the current
// cell, its phase and an ETA on a terminal, and one plain line per finished
// cell otherwise (CI logs, pipes).
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/report"
	"github.com/webbench/webbench/harness/results"
)

// For picks the display for w: a bar when w is a terminal.
func For(w io.Writer) interface {
	Start([]matrix.Cell, time.Duration)
	Phase(matrix.Cell, string)
	Done(*results.Cell)
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
}

func (l *Lines) Start(cells []matrix.Cell, est time.Duration) {
	l.total = len(cells)
	fmt.Fprintf(l.w, "%d cells, estimated %s\n", l.total, est.Round(time.Second))
}

func (l *Lines) Phase(matrix.Cell, string) {}

func (l *Lines) Done(c *results.Cell) {
	l.done++
	fmt.Fprintf(l.w, "[%d/%d] %s\n", l.done, l.total, Summary(c))
}

func (l *Lines) Finish() {}

// Summary is a one-line account of a finished cell.
func Summary(c *results.Cell) string {
	switch {
	case c.Status == results.OK && c.Summary != nil:
		return fmt.Sprintf("%s ok %s rps, p99 %s ms (%.1fs)", c.ID(), report.Sig(c.Summary.RPSMedian), report.Sig(c.Summary.LatencyP99Median), c.Seconds)
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
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (b *Bar) Start(cells []matrix.Cell, est time.Duration) {
	b.bar = progressbar.NewOptions(len(cells),
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

func (b *Bar) Done(c *results.Cell) {
	b.bar.Clear()
	fmt.Fprintf(b.w, "\r%s\n", Summary(c))
	b.bar.Add(1)
}

func (b *Bar) Finish() {
	b.bar.Finish()
	fmt.Fprintln(b.w)
}
