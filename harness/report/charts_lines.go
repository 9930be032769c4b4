package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

// Line chart size, before the legend below it.
const lineW, lineH = vg.Length(560), vg.Length(340)

// addLines adds one line with points per series, styled by its place,
// and returns their legend entries.
func addLines(p *plot.Plot, names []string, series []plotter.XYs) ([]legendEntry, error) {
	var entries []legendEntry
	for i, pts := range series {
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		styleLine(l, s, i)
		p.Add(l, s)
		entries = append(entries, legendEntry{names[i], []plot.Thumbnailer{l, s}})
	}
	return entries, nil
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
		p.X.Tick.Marker = logTicks{countLabel}
		p.X.Label.Text += " (log scale)"
	}
	p.Y.Label.Text = "requests/s (" + string(rows[0].Aggregate) + ")"
	p.Y.Min = 0
	p.Y.Tick.Marker = countTicks{}
	sort.Strings(names)
	var series []plotter.XYs
	for _, n := range names {
		pts := lines[n]
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		series = append(series, pts)
	}
	p.Add(plotter.NewGrid())
	entries, err := addLines(p, names, series)
	if err != nil {
		return c, err
	}
	c.SVG, err = renderChart(p, lineW, lineH, entries)
	return c, err
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
	var names []string
	var series []plotter.XYs
	for _, r := range rows {
		if (group{r.Params, r.CPUs, r.Connections, r.Close, r.Rate}) != g {
			continue
		}
		names = append(names, r.Target)
		series = append(series, percentiles(r.Latency))
	}
	p.Add(plotter.NewGrid())
	entries, err := addLines(p, names, series)
	if err != nil {
		return c, err
	}
	p.Y.Min = 0
	var ticks plot.ConstantTicks
	for _, pt := range percentiles(analysis.Latency{}) {
		ticks = append(ticks, plot.Tick{Value: pt.X, Label: fmt.Sprintf("p%g", pt.X)})
	}
	p.X.Tick.Marker = ticks
	c.SVG, err = renderChart(p, lineW, lineH, entries)
	return c, err
}

// percentiles are l's p50, p75, p90, p95 and p99 (medians over trials) as
// a latency chart's line: the percentile against its milliseconds.
func percentiles(l analysis.Latency) plotter.XYs {
	return plotter.XYs{{X: 50, Y: l.P50.Median}, {X: 75, Y: l.P75}, {X: 90, Y: l.P90}, {X: 95, Y: l.P95}, {X: 99, Y: l.P99.Median}}
}

// Marks of the capacity chart, in black over the curves' colours.
var (
	kneeMark     = draw.GlyphStyle{Color: color.Black, Shape: draw.RingGlyph{}, Radius: vg.Points(7)} // a ring: the curve stays visible through it
	capacityMark = draw.GlyphStyle{Color: color.Black, Shape: draw.PyramidGlyph{}, Radius: vg.Points(5)}
)

// latencyCurves draws each fixed-rate curve of a scenario: its latency (at
// the objective's percentile, or p99) against the throughput it achieved,
// both on log axes, with its knee ringed, its capacity within the
// objective marked, and the objective's bound as a dashed line; nothing
// when no target was measured at two rates or more.
func latencyCurves(run *results.Run, sc string) (Chart, error) {
	c := Chart{File: fileName("latency-vs-rps", sc)}
	curves := analysis.Curves(run, sc)
	if len(curves) == 0 {
		return c, nil
	}
	pct := curves[0].Percentile
	var names []string
	var series []plotter.XYs
	var knees, caps plotter.XYs
	for _, cv := range curves {
		pts, knee, capy := curvePoints(cv)
		if len(pts) == 0 {
			continue
		}
		names = append(names, fmt.Sprintf("%s %s%d core(s) c%s", cv.Target, paramPrefix(cv.Params), cv.CPUs, connsText(cv.Connections, cv.Close)))
		series = append(series, pts)
		knees, caps = append(knees, knee...), append(caps, capy...)
	}
	if len(series) == 0 {
		return c, nil
	}
	p := plot.New()
	c.Title = fmt.Sprintf("%s: %s latency against throughput, fixed rates", sc, pct)
	title(p, sc, pct+" latency against throughput, fixed rates")
	p.X.Label.Text = "requests/s achieved (median over trials, log scale)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{countLabel}
	p.Y.Label.Text = pct + " ms (log scale)"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{msLabel}
	p.Add(plotter.NewGrid())
	entries, err := addLines(p, names, series)
	if err != nil {
		return c, err
	}
	for _, m := range []struct {
		pts  plotter.XYs
		sty  draw.GlyphStyle
		name string
	}{{knees, kneeMark, "knee"}, {caps, capacityMark, "capacity within the objective"}} {
		if len(m.pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(m.pts)
		if err != nil {
			return c, err
		}
		s.GlyphStyle = m.sty
		p.Add(s)
		entries = append(entries, legendEntry{m.name, []plot.Thumbnailer{s}})
	}
	if slo := run.Matrix.SLO; len(slo) > 0 {
		o := hline{y: float64(slo[len(slo)-1].Max) / 1e6}
		p.Add(o)
		entries = append(entries, legendEntry{fmt.Sprintf("objective: %s ≤ %s", pct, time.Duration(slo[len(slo)-1].Max)), []plot.Thumbnailer{o}})
	}
	c.SVG, err = renderChart(p, lineW, lineH, entries)
	return c, err
}

// curvePoints are cv's points that can sit on log axes, its knee's point,
// and the point of its capacity within the objective: the highest rate
// tried at or below the trials' median capacity.
func curvePoints(cv *analysis.Curve) (pts, knee, capy plotter.XYs) {
	best := 0
	for _, pt := range cv.Points {
		if pt.LatencyMS <= 0 || pt.Achieved <= 0 {
			continue
		}
		xy := plotter.XY{X: pt.Achieved, Y: pt.LatencyMS}
		pts = append(pts, xy)
		if pt.Rate == cv.Knee {
			knee = plotter.XYs{xy}
		}
		if cv.Capacity != nil && cv.Capacity.Median > 0 && float64(pt.Rate) <= cv.Capacity.Median && pt.Rate > best {
			best, capy = pt.Rate, plotter.XYs{xy}
		}
	}
	return pts, knee, capy
}

// hline is a dashed line across the plot at y: the objective's bound. Its
// y is in the data range, so the line is drawn even above every curve.
type hline struct{ y float64 }

var objectiveLine = draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}

func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(objectiveLine, c.Min.X, y, c.Max.X, y)
}

func (h hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

func (h hline) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(objectiveLine, c.Min.X, y, c.Max.X, y)
}
