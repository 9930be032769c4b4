package report

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// Chart is one SVG figure of a run, written beside README.md under charts/.
type Chart struct {
	File  string // e.g. "rps-plaintext.svg"
	Title string
	SVG   []byte
}

// Charts draws, from the results alone and deterministically, for each
// scenario: latency against throughput for each fixed-rate curve, RPS by
// target (bars with the 95% interval as whiskers, or min…max with fewer
// than 6 trials or a best-of aggregate), RPS against cores and against a
// param (one line per target) where the run varied them, and latency
// percentiles per target. It stops at DefaultCaps' charts and bytes of SVG
// (Render says so).
func Charts(run *results.Run) ([]Chart, error) {
	d, err := DefaultCaps.drawCharts(context.Background(), run)
	if err != nil {
		return nil, err
	}
	return d.charts, nil
}

// drawn is the charts of one render, and where the caps stopped them.
type drawn struct {
	charts  []Chart
	bytes   int
	stopped string // the scenario whose chart passed a cap; "" when none did
	after   int    // how many scenarios follow it
}

// drawCharts draws the charts of each scenario in turn until one would
// pass cp's count or bytes of charts: drawing stops there, so that a run
// of many cells costs no more than the caps allow. Cancelling ctx stops
// it with ctx's error.
func (cp Caps) drawCharts(ctx context.Context, run *results.Run) (*drawn, error) {
	d := &drawn{}
	scs := scenarios(run)
	for i, sc := range scs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, draw := range chartsOf(run, sc) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c, err := draw()
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", c.File, err)
			}
			if c.SVG == nil {
				continue // nothing to draw: a single core count, no param
			}
			if len(d.charts) == cp.Charts || d.bytes+len(c.SVG) > cp.ChartBytes {
				d.stopped, d.after = sc, len(scs)-1-i
				return d, nil
			}
			d.charts, d.bytes = append(d.charts, c), d.bytes+len(c.SVG)
		}
	}
	return d, nil
}

// chartsOf lists how to draw each chart of scenario sc, in their order,
// so that none is drawn past a cap.
func chartsOf(run *results.Run, sc string) []func() (Chart, error) {
	draws := []func() (Chart, error){func() (Chart, error) { return latencyCurves(run, sc) }}
	rows := analysis.FullSpeed(analysis.Rows(run, sc))
	if len(rows) == 0 {
		return draws
	}
	draws = append(draws,
		func() (Chart, error) { return rpsBars(sc, rows) },
		func() (Chart, error) {
			return rpsVs(sc, rows, "cores", func(r *analysis.Row) (float64, bool) { return float64(r.CPUs), true })
		},
		func() (Chart, error) { return rpsVs(sc, rows, "param", paramValue) })
	// Percentiles come from the generators that report them (h2load
	// gives only mean and max): no line of zeros for the others.
	timed := slices.DeleteFunc(slices.Clone(rows), func(r *analysis.Row) bool { return r.P50.Median == 0 })
	groups := latencyGroups(timed)
	for _, g := range groups {
		draws = append(draws, func() (Chart, error) { return latency(sc, timed, g, len(groups) > 1) })
	}
	return draws
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

func fileName(kind, scenario string) string {
	return kind + "-" + unsafeName.ReplaceAllString(scenario, "_") + ".svg"
}

// title sets a chart's title on two lines, the scenario above what is
// drawn, so that a long one is not clipped at the figure's edge.
func title(p *plot.Plot, sc, what string) {
	p.Title.Text = sc + "\n" + what
}

// countTicks are gonum's default ticks labelled as counts ("75,000"), not
// with the decimals the default labels carry ("75000.00").
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = numfmt.Count(int64(math.Round(t.Value)))
		}
	}
	return ticks
}

func paramValue(r *analysis.Row) (float64, bool) {
	_, v, ok := cutParam(r.Params)
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(v, 64)
	return x, err == nil
}

// cutParam splits a single "k=v" params text.
func cutParam(params string) (string, string, bool) {
	for i := 0; i < len(params); i++ {
		if params[i] == '&' {
			return "", "", false // several params: no single axis
		}
	}
	for i := 0; i < len(params); i++ {
		if params[i] == '=' {
			return params[:i], params[i+1:], true
		}
	}
	return "", "", false
}

// latencyGroups are the groups of rows (params, cores, connections,
// keep-alive) in their table's order: one latency chart each.
func latencyGroups(rows []*analysis.Row) []group {
	var out []group
	for _, r := range rows {
		if g := (group{r.Params, r.CPUs, r.Connections, r.Close, r.Rate}); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

func paramPrefix(params string) string {
	if params == "" {
		return ""
	}
	return params + ", "
}
