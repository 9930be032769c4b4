package report

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

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

// okabeIto is the colour-blind-safe palette of Okabe and Ito (2008), in
// the order that keeps neighbours apart; the charts' lines and bars take
// their colours from it, never red beside green.
var okabeIto = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{240, 228, 66, 255},  // yellow
	color.RGBA{0, 0, 0, 255},       // black
}

func init() {
	// plotutil's line and bar helpers read their colours from here.
	plotutil.DefaultColors = okabeIto
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

func fileName(kind, scenario string) string {
	return kind + "-" + unsafeName.ReplaceAllString(scenario, "_") + ".svg"
}

// renderLegendRight draws p with its legend in a column of its own to the
// right of the plot area, where it covers no line.
func renderLegendRight(p *plot.Plot, w, h, legendW vg.Length) ([]byte, error) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	img := vgsvg.New(w+legendW, h)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	leg.Top, leg.Left = true, true
	leg.YOffs = -p.Title.TextStyle.Height(p.Title.Text) - p.Title.Padding
	leg.Draw(draw.Crop(dc, w+vg.Points(4), 0, 0, 0))
	var b bytes.Buffer
	if _, err := img.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func render(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// labels names each row's bar: the target, and its params, cores and
// connections when the rows span several of those.
func labels(rows []*analysis.Row) []string {
	groups := map[group]bool{}
	for _, x := range rows {
		groups[group{x.Params, x.CPUs, x.Connections, x.Close, x.Rate}] = true
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Target
		if len(r.BoundBy) > 0 {
			out[i] += " †"
		}
		if len(groups) > 1 {
			out[i] += fmt.Sprintf("\n%s%d core(s), c%s", paramPrefix(r.Params), r.Cores, connsText(r.Connections, r.Close))
		}
	}
	return out
}

// title sets a chart's title on two lines, the scenario above what is
// drawn, so that a long one is not clipped at the figure's edge.
func title(p *plot.Plot, sc, what string) {
	p.Title.Text = sc + "\n" + what
}

// whiskers are how far the whiskers of a row's throughput t reach below
// and above its bar: to min…max for best-of-N (the spread the best was
// picked from), else to the median's 95% interval; never into the bar.
func whiskers(t analysis.Throughput) struct{ Low, High float64 } {
	lo, hi := t.RPSStats.Lo, t.RPSStats.Hi
	if t.Aggregate == "best" || !t.RPSStats.HasCI {
		lo, hi = t.RPSStats.Min, t.RPSStats.Max
	}
	return struct{ Low, High float64 }{t.RPS - min(lo, t.RPS), max(hi, t.RPS) - t.RPS}
}

func rpsBars(sc string, rows []*analysis.Row) (Chart, error) {
	c := Chart{File: fileName("rps", sc), Title: sc + ": requests/s by target"}
	p := plot.New()
	title(p, sc, "requests/s by target")
	p.Y.Label.Text = "requests/s (" + string(rows[0].Aggregate) + ")"
	p.X.Label.Text = whiskerLabel(rows)
	if slices.ContainsFunc(rows, func(r *analysis.Row) bool { return len(r.BoundBy) > 0 }) {
		p.X.Label.Text += "\n† load generator bound" // a legend only where a bar is
	}
	if conns := connSeries(rows); len(conns) > 1 {
		return groupedBars(c, p, rows, conns)
	}
	vals := make(plotter.Values, len(rows))
	pts := errPoints{XYs: make(plotter.XYs, len(rows)), YErrors: make(plotter.YErrors, len(rows))}
	names := labels(rows)
	for i, r := range rows {
		vals[i] = r.RPS
		pts.XYs[i] = plotter.XY{X: float64(i), Y: r.RPS}
		pts.YErrors[i] = whiskers(r.Throughput)
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(18))
	if err != nil {
		return c, err
	}
	bars.Color = plotutil.Color(0)
	errBars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return c, err
	}
	p.Add(bars, errBars, plotter.NewGrid())
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
	p.Y.Min, p.Y.Max = 0, headroom(rows)
	p.Y.Tick.Marker = countTicks{}
	c.SVG, err = render(p, vg.Points(max(560, float64(150*len(rows)+80))), 340)
	return c, err
}

// whiskerLabel says what the whiskers of rows are, as whiskers draws
// them: the label names what the chart holds, not a rule with a trial
// count a reader could take for the run's.
func whiskerLabel(rows []*analysis.Row) string {
	if rows[0].Aggregate == results.AggregateBest {
		return "bar: best trial; whiskers: min…max of the trials"
	}
	sp := spreadOf(false)
	for _, r := range rows {
		sp.add(r.RPSStats)
	}
	switch {
	case sp.ci && sp.minmax:
		return "whiskers: 95% CI of the median; min…max where a cell has too few trials for one"
	case sp.ci:
		return "whiskers: 95% CI of the median"
	case sp.minmax:
		return "whiskers: min…max of the trials"
	}
	return "one trial per cell: no whiskers"
}

// headroom is the top of a bar chart's axis: 8% above the highest
// whisker, so that no whisker is cut at the plot's edge.
func headroom(rows []*analysis.Row) float64 {
	top := 0.0
	for _, r := range rows {
		top = max(top, r.RPS+whiskers(r.Throughput).High)
	}
	return top * 1.08
}

// connKey is one connection setting: the count, and whether keep-alive is off.
type connKey struct {
	conns int
	close bool
}

func (k connKey) String() string { return "c" + connsText(k.conns, k.close) }

// connSeries lists the connection settings of rows, fewest connections first.
func connSeries(rows []*analysis.Row) []connKey {
	var out []connKey
	for _, r := range rows {
		if k := (connKey{r.Connections, r.Close}); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].conns != out[j].conns {
			return out[i].conns < out[j].conns
		}
		return !out[i].close && out[j].close
	})
	return out
}

// groupedBars draws rows that span several connection settings as groups
// of bars: one group per target (and params and cores), one colored bar
// per connection setting, side by side so that a reader compares a target
// at c20 with itself at c400 without hunting through one long row of bars.
// A group's label names the settings at which it was generator-bound (†).
func groupedBars(c Chart, p *plot.Plot, rows []*analysis.Row, conns []connKey) (Chart, error) {
	var cats []barGroup
	at := map[barGroup]map[connKey]*analysis.Row{}
	for _, r := range rows {
		k := barGroup{r.Target, r.Params, r.CPUs}
		if at[k] == nil {
			cats = append(cats, k)
			at[k] = map[connKey]*analysis.Row{}
		}
		at[k][connKey{r.Connections, r.Close}] = r
	}
	names := groupNames(cats, at, conns)
	const barW = 16
	for j, ck := range conns {
		vals := make(plotter.Values, len(cats))
		var pts errPoints
		for i, k := range cats {
			r := at[k][ck]
			if r == nil {
				continue // not measured at this setting (or not ok): no bar
			}
			vals[i] = r.RPS
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(i), Y: r.RPS})
			pts.YErrors = append(pts.YErrors, whiskers(r.Throughput))
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(barW))
		if err != nil {
			return c, err
		}
		off := vg.Points(barW * (float64(j) - float64(len(conns)-1)/2))
		bars.Color, bars.Offset = plotutil.Color(j), off
		p.Add(bars)
		p.Legend.Add(ck.String(), bars)
		if len(pts.XYs) > 0 {
			w, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return c, err
			}
			p.Add(offsetWhiskers{w, off})
		}
	}
	p.Add(plotter.NewGrid())
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(cats))-0.4
	p.Y.Min, p.Y.Max = 0, headroom(rows)
	p.Y.Tick.Marker = countTicks{}
	legend := make([]string, len(conns))
	for i, ck := range conns {
		legend[i] = ck.String()
	}
	var err error
	perCat := float64(barW*len(conns) + 60)
	for _, n := range names {
		for _, line := range strings.Split(n, "\n") {
			perCat = max(perCat, 6.5*float64(len([]rune(line)))+16) // room for the label under the group
		}
	}
	c.SVG, err = renderLegendRight(p, vg.Points(max(480, float64(len(cats))*perCat+80)), 340, legendWidth(legend)+vg.Points(24))
	return c, err
}

// barGroup is one group of bars: a target, at one params and core count.
type barGroup struct {
	target, params string
	cpus           int
}

// groupNames labels each group of bars: its target, the connection
// settings at which it was generator-bound (†), and its params and cores
// when the groups differ in those.
func groupNames(cats []barGroup, at map[barGroup]map[connKey]*analysis.Row, conns []connKey) []string {
	several := false
	for _, k := range cats {
		several = several || k.params != cats[0].params || k.cpus != cats[0].cpus
	}
	names := make([]string, len(cats))
	for i, k := range cats {
		names[i] = k.target
		var bound []string
		for _, ck := range conns {
			if r := at[k][ck]; r != nil && len(r.BoundBy) > 0 {
				bound = append(bound, ck.String())
			}
		}
		if len(bound) > 0 {
			names[i] += " †" + strings.Join(bound, ",")
		}
		if several {
			names[i] += fmt.Sprintf("\n%s%d core(s)", paramPrefix(k.params), k.cpus)
		}
	}
	return names
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

// offsetWhiskers draws error bars shifted right by off, as a bar chart's
// Offset shifts its bars, so that they sit on their bar; their data range
// still sets the Y axis, so no whisker is clipped.
type offsetWhiskers struct {
	*plotter.YErrorBars
	off vg.Length
}

func (o offsetWhiskers) Plot(c draw.Canvas, p *plot.Plot) {
	c.Push()
	defer c.Pop()
	c.Translate(vg.Point{X: o.off})
	o.YErrorBars.Plot(c, p)
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

// rpsVs draws RPS against a numeric axis (cores, or the scenario's one
// param), one line per target and connection count; nothing when the run
// has fewer than two values on that axis.
func rpsVs(sc string, rows []*analysis.Row, axis string, x func(*analysis.Row) (float64, bool)) (Chart, error) {
	c := Chart{File: fileName("rps-vs-"+axis, sc)}
	xs := map[float64]bool{}
	lines := map[string]plotter.XYs{}
	var names []string
	for _, r := range rows {
		v, ok := x(r)
		if !ok {
			return c, nil
		}
		xs[v] = true
		name := r.Target
		if axis == "param" {
			name += fmt.Sprintf(" %dc", r.CPUs)
		} else if r.Params != "" {
			name += " " + r.Params
		}
		name += " c" + connsText(r.Connections, r.Close)
		if _, ok := lines[name]; !ok {
			names = append(names, name)
		}
		lines[name] = append(lines[name], plotter.XY{X: v, Y: r.RPS})
	}
	if len(xs) < 2 {
		return c, nil
	}
	p := plot.New()
	xlabel := "cores given to the target"
	if axis == "param" {
		k, _, _ := cutParam(rows[0].Params)
		xlabel = k
	}
	c.Title = fmt.Sprintf("%s: requests/s against %s", sc, xlabel)
	title(p, sc, "requests/s against "+xlabel)
	p.X.Label.Text = xlabel
	lo, hi := math.Inf(1), math.Inf(-1)
	for v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if axis == "param" && lo > 0 && hi/lo >= 10 {
		// A param spanning decades (records 10…500) on a log axis.
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Label.Text += " (log scale)"
	}
	p.Y.Label.Text = "requests/s (" + string(rows[0].Aggregate) + ")"
	p.Y.Min = 0
	p.Y.Tick.Marker = countTicks{}
	sort.Strings(names)
	var args []any
	for _, n := range names {
		pts := lines[n]
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		args = append(args, n, pts)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return c, err
	}
	p.Add(plotter.NewGrid())
	var err error
	c.SVG, err = renderLegendRight(p, 480, 320, legendWidth(names))
	return c, err
}

// legendWidth is room for the longest legend entry.
func legendWidth(names []string) vg.Length {
	n := 0
	for _, s := range names {
		n = max(n, len([]rune(s)))
	}
	return vg.Points(float64(36 + 7*n)) // about a serif glyph's width: a long name is not clipped
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

// latency draws p50, p75, p90, p95 and p99 (medians over trials) per
// target, for one group of cells; several names its file after the group.
func latency(sc string, rows []*analysis.Row, g group, several bool) (Chart, error) {
	c := Chart{File: fileName("latency", sc)}
	if several {
		suffix := fmt.Sprintf("%dcpu-c%d", g.cpus, g.conns)
		if g.close {
			suffix += "-close"
		}
		if g.params != "" {
			suffix += "-" + g.params
		}
		c.File = fileName("latency", sc+"-"+suffix)
	}
	conns := connsText(g.conns, g.close)
	p := plot.New()
	c.Title = fmt.Sprintf("%s: latency percentiles (%s%d core(s), %s connections)", sc, paramPrefix(g.params), g.cpus, conns)
	title(p, sc, fmt.Sprintf("latency percentiles (%s%d core(s), %s connections)", paramPrefix(g.params), g.cpus, conns))
	p.Y.Label.Text = "ms (median over trials)"
	p.X.Label.Text = "percentile"
	var args []any
	for _, r := range rows {
		if (group{r.Params, r.CPUs, r.Connections, r.Close, r.Rate}) != g {
			continue
		}
		args = append(args, r.Target, percentiles(r.Latency))
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return c, err
	}
	p.Add(plotter.NewGrid())
	p.Y.Min = 0
	var names []string
	for i := 0; i < len(args); i += 2 {
		names = append(names, args[i].(string))
	}
	var err error
	c.SVG, err = renderLegendRight(p, 480, 320, legendWidth(names))
	return c, err
}

// percentiles are l's p50, p75, p90, p95 and p99 (medians over trials) as
// a latency chart's line: the percentile against its milliseconds.
func percentiles(l analysis.Latency) plotter.XYs {
	return plotter.XYs{{X: 50, Y: l.P50.Median}, {X: 75, Y: l.P75}, {X: 90, Y: l.P90}, {X: 95, Y: l.P95}, {X: 99, Y: l.P99.Median}}
}

func paramPrefix(params string) string {
	if params == "" {
		return ""
	}
	return params + ", "
}

// latencyCurves draws each fixed-rate curve of a scenario: its latency (at
// the objective's percentile, or p99) against the throughput it achieved,
// on a log latency axis, with its knee ringed and the objective's bound as
// a dashed line; nothing when no target was measured at two rates or more.
func latencyCurves(run *results.Run, sc string) (Chart, error) {
	c := Chart{File: fileName("latency-vs-rps", sc)}
	curves := analysis.Curves(run, sc)
	if len(curves) == 0 {
		return c, nil
	}
	pct := curves[0].Percentile
	p := plot.New()
	c.Title = fmt.Sprintf("%s: %s latency against throughput, fixed rates", sc, pct)
	title(p, sc, pct+" latency against throughput, fixed rates")
	p.X.Label.Text = "requests/s achieved (median over trials)"
	p.X.Tick.Marker = countTicks{}
	p.Y.Label.Text = pct + " ms (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var args []any
	var names []string
	var knees plotter.XYs
	for _, cv := range curves {
		var pts plotter.XYs
		for _, pt := range cv.Points {
			if pt.LatencyMS > 0 && pt.Achieved > 0 {
				pts = append(pts, plotter.XY{X: pt.Achieved, Y: pt.LatencyMS})
				if pt.Rate == cv.Knee {
					knees = append(knees, plotter.XY{X: pt.Achieved, Y: pt.LatencyMS})
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		name := fmt.Sprintf("%s %s%d core(s) c%s", cv.Target, paramPrefix(cv.Params), cv.CPUs, connsText(cv.Connections, cv.Close))
		names = append(names, name)
		args = append(args, name, pts)
	}
	if len(args) == 0 {
		return c, nil
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return c, err
	}
	if len(knees) > 0 {
		s, err := plotter.NewScatter(knees)
		if err != nil {
			return c, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Radius = draw.RingGlyph{}, vg.Points(6) // a ring: the curves stay visible through it
		p.Add(s)
		p.Legend.Add("knee", s)
		names = append(names, "knee")
	}
	if slo := run.Matrix.SLO; len(slo) > 0 {
		bound := float64(slo[len(slo)-1].Max) / 1e6
		lo, hi := p.X.Min, p.X.Max
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: bound}, {X: hi, Y: bound}})
		if err != nil {
			return c, err
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		name := fmt.Sprintf("objective: %s ≤ %s", pct, time.Duration(slo[len(slo)-1].Max))
		p.Legend.Add(name, l)
		names = append(names, name)
	}
	p.Add(plotter.NewGrid())
	var err error
	c.SVG, err = renderLegendRight(p, 480, 320, legendWidth(names))
	return c, err
}
