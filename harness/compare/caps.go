package compare

import (
	"fmt"
	"strings"

	"github.com/webbench/webbench/harness/numfmt"
)

// Caps bound what one Markdown comparison writes, as report's caps bound
// a README: two results.json of many cells would otherwise give a page
// that grows with whatever the files held. A comparison past a cap shows
// what fits, and says at its top (and the command on stderr) what was
// left out; the CSV and JSON formats are not capped.
type Caps struct {
	Lines     int // cell lines of the scenario tables, all scenarios together, in order
	Problems  int // what a gate fails on, listed
	Unmatched int // cells not in every run, listed
}

// DefaultCaps are the caps of every Markdown comparison: report's 1,000
// cells, far above every committed comparison.
var DefaultCaps = Caps{Lines: 1000, Problems: 1000, Unmatched: 1000}

// within is c with its lists cut to cp, and one sentence per list cut
// (none when nothing was). The geomeans and the gate are still those of
// every line.
func (cp Caps) within(c *Comparison) (*Comparison, []string) {
	shown := *c
	var left []string
	room := cp.Lines
	shown.Scenarios = nil
	all := 0
	for _, sc := range c.Scenarios {
		all += len(sc.Lines)
		sc.Lines = sc.Lines[:min(len(sc.Lines), max(room, 0))]
		room -= len(sc.Lines)
		if len(sc.Lines) > 0 {
			shown.Scenarios = append(shown.Scenarios, sc)
		}
	}
	if all > cp.Lines {
		left = append(left, fmt.Sprintf("%s of the %s compared cells are left out of the tables: they hold the first %s, in order; each scenario's geomean and the gate are still of every cell.",
			numfmt.Count(int64(all-cp.Lines)), numfmt.Count(int64(all)), numfmt.Count(int64(cp.Lines))))
	}
	if n := len(c.Problems); n > cp.Problems {
		shown.Problems = c.Problems[:cp.Problems]
		left = append(left, fmt.Sprintf("%s of the %s things a gate fails on are not listed.", numfmt.Count(int64(n-cp.Problems)), numfmt.Count(int64(n))))
	}
	if n := len(c.Unmatched); n > cp.Unmatched {
		shown.Unmatched = c.Unmatched[:cp.Unmatched]
		left = append(left, fmt.Sprintf("%s of the %s cells not in every run are not listed.", numfmt.Count(int64(n-cp.Unmatched)), numfmt.Count(int64(n))))
	}
	return &shown, left
}

// notice is what the top of a capped comparison says.
func (cp Caps) notice(left []string) string {
	if len(left) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Not all of this comparison is shown.** One comparison shows at most %s cells, %s gate problems and %s unmatched cells:\n\n",
		numfmt.Count(int64(cp.Lines)), numfmt.Count(int64(cp.Problems)), numfmt.Count(int64(cp.Unmatched)))
	for _, l := range left {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\n`bin/harness compare --format csv` writes every compared cell.\n\n")
	return b.String()
}
