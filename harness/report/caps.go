package report

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/webbench/webbench/harness/internal/mdtext"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// Caps bound what one render writes. Without them a results.json of
// 200,000 cells rendered a 61 MB README and 371 MB of SVG:
// each cell costs its rows, notes and charts, so the output grew with
// whatever a file held. A run past a cap renders what fits, and its README
// says at its top what was left out; results.json keeps every cell, and
// the CSV (report --format csv), one line per ok cell, is not capped.
type Caps struct {
	Cells       int // cells shown in the tables and charts: the first, in results.json's order
	Charts      int // charts drawn
	ChartBytes  int // SVG drawn, all charts together
	READMEBytes int // README.md, its note of what was left out included
}

// DefaultCaps are the caps of every render. They bound the time, memory
// and disk one render takes whatever results.json holds, and sit above
// every committed run, which renders whole (TestCommittedResultsRender
// fails when a cap leaves anything of one out); the README's is the
// megabyte a results folder's front page may have (MaxIndexSize).
var DefaultCaps = Caps{Cells: 1000, Charts: 200, ChartBytes: 8 << 20, READMEBytes: MaxIndexSize}

// Rendered is what one render of a run writes: README.md, its charts, and
// what the caps left out of them.
type Rendered struct {
	README []byte
	Charts []Chart
	// Left says, one sentence each, what the caps left out; the README
	// says the same at its top, and a command warns with it. Empty when
	// everything was rendered.
	Left []string
}

// Render renders run within DefaultCaps, from run alone. Cancelling ctx
// stops it between charts and before the README: it returns ctx's error.
func Render(ctx context.Context, run *results.Run) (*Rendered, error) {
	return DefaultCaps.render(ctx, run)
}

func (cp Caps) render(ctx context.Context, run *results.Run) (*Rendered, error) {
	shown, left := cp.withinCells(run)
	d, err := cp.drawCharts(ctx, shown)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d.stopped != "" {
		left = append(left, fmt.Sprintf("Only %d charts are drawn (%s of SVG): drawing stopped in scenario %s, so its later charts and those of the %s scenario(s) after it are missing.",
			len(d.charts), mib(d.bytes), mdtext.Code(d.stopped), numfmt.Count(int64(d.after))))
	}
	var b strings.Builder
	if err := markdown(&b, shown, d.charts); err != nil {
		return nil, err
	}
	readme, left := cp.fit(b.String(), left)
	return &Rendered{README: []byte(readme), Charts: d.charts, Left: left}, nil
}

// withinCells is run with its first cp.Cells cells only, and the sentence
// saying so (none when it has no more). The tables then compare the cells
// shown with each other, which the sentence says too.
func (cp Caps) withinCells(run *results.Run) (*results.Run, []string) {
	n := len(run.Cells)
	if n <= cp.Cells {
		return run, nil
	}
	shown := *run
	shown.Cells = run.Cells[:cp.Cells]
	return &shown, []string{fmt.Sprintf("%s of the run's %s cells are left out: the tables and charts hold its first %s in results.json's order, and compare them only with each other.",
		numfmt.Count(int64(n-cp.Cells)), numfmt.Count(int64(n)), numfmt.Count(int64(cp.Cells)))}
}

// fit puts the notice of left under the README's title line and, when the
// whole would pass cp.READMEBytes, cuts the body after its last line that
// fits, adding that cut to left. A body within every cap is returned as
// it is.
func (cp Caps) fit(body string, left []string) (string, []string) {
	if len(left) == 0 && len(body) <= cp.READMEBytes {
		return body, nil
	}
	title, rest, _ := strings.Cut(body, "\n\n")
	title += "\n\n"
	if len(title)+len(cp.notice(left))+len(rest) <= cp.READMEBytes {
		return title + cp.notice(left) + rest, left
	}
	const tail = "\n*The page is cut here, at its size cap: see the note at its top.*\n"
	cut := func(n int) string {
		return fmt.Sprintf("The page is cut at %s: its last %s bytes (the tables and notes after the cut) are missing.", mib(cp.READMEBytes), numfmt.Count(int64(n)))
	}
	// The sentence with the whole rest cut is the longest it can be: the
	// room left for the body is then a floor.
	room := cp.READMEBytes - len(title) - len(cp.notice(append(left, cut(len(rest))))) - len(tail)
	kept := rest[:max(0, min(room, len(rest)))]
	kept = kept[:strings.LastIndexByte(kept, '\n')+1]
	left = append(left, cut(len(rest)-len(kept)))
	return title + cp.notice(left) + kept + tail, left
}

// notice is what the top of a capped README says.
func (cp Caps) notice(left []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Not all of this run is shown.** One render shows at most %s cells, in at most %s charts (%s of SVG) and a README of %s:\n\n",
		numfmt.Count(int64(cp.Cells)), numfmt.Count(int64(cp.Charts)), mib(cp.ChartBytes), mib(cp.READMEBytes))
	for _, l := range left {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\nresults.json holds every cell; `bin/harness report --format csv DIR` writes every ok cell's figures to results.csv.\n\n")
	return b.String()
}

// mib is n bytes in MiB, as the caps are stated: "8 MiB", "1.07 MiB".
func mib(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return numfmt.Sig(float64(n)/(1<<20)) + " MiB"
}
