package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/numfmt"
	"github.com/webbench/webbench/harness/results"
)

// Bar chart layout: a bar's thickness, and the figure's width before a
// long label widens it.
const (
	barH      = vg.Length(14)
	barsWidth = vg.Length(640)
	labelPad  = vg.Length(5) // between a whisker's end and its bar's label
)

// bar is one horizontal bar: its category (a row of the Y axis) and its
// offset within it, its value and interval, and its label.
type bar struct {
	y         float64
	off       vg.Length
	v, lo, hi float64
	bound     bool // generator-bound: hatched
	color     color.Color
	label     string
}

// hbars draws bars from zero to their value, each with its interval as a
// whisker and its label to the right of the whisker.
type hbars []bar

func (bs hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle()
	for _, b := range bs {
		y := trY(b.y) + b.off
		r := vg.Rectangle{Min: vg.Point{X: trX(0), Y: y - barH/2 + 1}, Max: vg.Point{X: trX(b.v), Y: y + barH/2 - 1}}
		fillBar(c, r, b.color, b.bound)
		ws := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		if b.hi > b.lo {
			x0, x1 := trX(b.lo), trX(b.hi)
			c.StrokeLine2(ws, x0, y, x1, y)
			c.StrokeLine2(ws, x0, y-barH/4, x0, y+barH/4)
			c.StrokeLine2(ws, x1, y-barH/4, x1, y+barH/4)
		}
		c.FillText(sty, vg.Point{X: trX(max(b.hi, b.v)) + labelPad, Y: y}, b.label)
	}
}

func (bs hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin, ymax = 0, math.Inf(1), math.Inf(-1)
	for _, b := range bs {
		xmax, ymin, ymax = max(xmax, b.hi, b.v), min(ymin, b.y-0.5), max(ymax, b.y+0.5)
	}
	return xmin, xmax, ymin, ymax
}

// fillBar fills r with col and, for a generator-bound bar, hatches it
// with diagonal lines that contrast with col, so the mark survives grey
// printing and needs no colour of its own.
func fillBar(c draw.Canvas, r vg.Rectangle, col color.Color, hatched bool) {
	c.FillPolygon(col, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	if !hatched {
		return
	}
	ink := color.Color(color.White)
	if luminance(col) > 0.5 {
		ink = color.Black
	}
	ls := draw.LineStyle{Color: ink, Width: vg.Points(1.2)}
	h := r.Max.Y - r.Min.Y
	for x := r.Min.X - h; x < r.Max.X; x += 5 {
		// A 45° stroke from (x, bottom) to (x+h, top), clipped to r.
		x0, x1 := max(x, r.Min.X), min(x+h, r.Max.X)
		if x1 > x0 {
			c.StrokeLine2(ls, x0, r.Min.Y+(x0-x), x1, r.Min.Y+(x1-x))
		}
	}
}

// luminance is col's relative lightness, 0 (black) to 1 (white).
func luminance(col color.Color) float64 {
	r, g, b, _ := col.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// barThumb is a bar's legend thumbnail.
type barThumb struct {
	color   color.Color
	hatched bool
}

func (t barThumb) Thumbnail(c *draw.Canvas) { fillBar(*c, c.Rectangle, t.color, t.hatched) }

// boundEntry is the legend's entry for the hatch of generator-bound bars;
// grouped bars also mark, with †, the groups that hold one.
func boundEntry(grouped bool) legendEntry {
	name := "generator-bound (hatched)"
	if grouped {
		name = "generator-bound (hatched; † in a group's name)"
	}
	return legendEntry{name, []plot.Thumbnailer{barThumb{color.Gray{Y: 0x90}, true}}}
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

// barOf is row r's bar in category y: its value, its whiskers, and a label
// giving both, and "generator-bound" where the generator bounded it.
func barOf(r *analysis.Row, y float64, off vg.Length, col color.Color) bar {
	w := whiskers(r.Throughput)
	b := bar{y: y, off: off, v: r.RPS, lo: r.RPS - w.Low, hi: r.RPS + w.High, bound: len(r.BoundBy) > 0, color: col}
	b.label = numfmt.Sig(r.RPS)
	if b.hi > b.lo {
		b.label += " [" + numfmt.Sig(b.lo) + "–" + numfmt.Sig(b.hi) + "]"
	}
	if b.bound {
		b.label += "  generator-bound"
	}
	return b
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
		if len(groups) > 1 {
			out[i] += fmt.Sprintf("\n%s%d core(s), c%s", paramPrefix(r.Params), r.Cores, connsText(r.Connections, r.Close))
		}
	}
	return out
}

// rpsBars draws requests/s by target as horizontal bars, fastest on top,
// each labelled with its value and interval; rows at several connection
// settings are drawn as groups of bars, one group per target.
func rpsBars(sc string, rows []*analysis.Row) (Chart, error) {
	c := Chart{File: fileName("rps", sc), Title: sc + ": requests/s by target"}
	p := plot.New()
	title(p, sc, "requests/s by target")
	p.X.Label.Text = "requests/s (" + string(rows[0].Aggregate) + ")\n" + whiskerLabel(rows)
	rows = slices.Clone(rows)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RPS > rows[j].RPS })
	var bars hbars
	var names []string
	var entries []legendEntry
	perCat := 1 // bars in a category
	if conns := connSeries(rows); len(conns) > 1 {
		bars, names, entries = groupedBars(rows, conns)
		perCat = len(conns)
	} else {
		names = labels(rows)
		for i, r := range rows {
			bars = append(bars, barOf(r, float64(len(rows)-1-i), 0, palette[1]))
		}
	}
	if slices.ContainsFunc(bars, func(b bar) bool { return b.bound }) {
		entries = append(entries, boundEntry(perCat > 1))
	}
	slices.Reverse(names) // the Y axis counts up: the first category is drawn on top
	p.Add(plotter.NewGrid(), bars)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
	p.X.Min = 0
	p.X.Tick.Marker = countTicks{}
	rowH := barH*vg.Length(perCat) + 10
	for _, n := range names {
		rowH = max(rowH, vg.Length(strings.Count(n, "\n")+1)*13+6)
	}
	w, h := barsWidth, 100+vg.Length(len(names))*rowH
	w = fitLabels(p, bars, w, h)
	var err error
	c.SVG, err = renderChart(p, w, h, entries)
	return c, err
}

// fitLabels sets the X axis's top so that every bar's label fits right of
// its whisker inside the plot, widening the figure (returned) where the
// labels would otherwise squeeze the bars to less than half of it.
func fitLabels(p *plot.Plot, bars hbars, w, h vg.Length) vg.Length {
	sty := textStyle()
	_, top, _, _ := bars.DataRange()
	for range 3 {
		p.X.Max = top
		da := p.DataCanvas(draw.New(vgsvg.New(w, h)))
		wd := da.Max.X - da.Min.X
		need, short := top, vg.Length(0)
		for _, b := range bars {
			room := wd - labelPad - sty.Width(b.label) - 4
			short = max(short, wd/2-room)
			if room > 0 {
				need = max(need, max(b.hi, b.v)*float64(wd/room))
			}
		}
		if short <= 0 {
			p.X.Max = need
			return w
		}
		w += short
	}
	return w
}

// whiskerLabel says what the whiskers and bracketed intervals of rows
// are, as whiskers draws them: the label names what the chart holds, not
// a rule with a trial count a reader could take for the run's.
func whiskerLabel(rows []*analysis.Row) string {
	if rows[0].Aggregate == results.AggregateBest {
		return "bar: best trial; whiskers and [ ]: min…max of the trials"
	}
	sp := spreadOf(false)
	for _, r := range rows {
		sp.add(r.RPSStats)
	}
	switch {
	case sp.ci && sp.minmax:
		return "whiskers and [ ]: 95% CI of the median; min…max where a cell has too few trials for one"
	case sp.ci:
		return "whiskers and [ ]: 95% CI of the median"
	case sp.minmax:
		return "whiskers and [ ]: min…max of the trials"
	}
	return "one trial per cell: no interval"
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

// groupedBars lays out rows (fastest first) that span several connection
// settings as groups of bars: one group per target (and params and cores),
// in the order of their fastest bar, one bar per connection setting, so a
// reader compares a target at c20 with itself at c400 without hunting. It
// returns the bars, the groups' names top to bottom, and the legend of
// the settings' colours.
func groupedBars(rows []*analysis.Row, conns []connKey) (hbars, []string, []legendEntry) {
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
	var bars hbars
	for i, k := range cats {
		for j, ck := range conns {
			if r := at[k][ck]; r != nil { // else not measured at this setting (or not ok): no bar
				off := barH * vg.Length(float64(len(conns)-1)/2-float64(j)) // the fewest connections on top
				bars = append(bars, barOf(r, float64(len(cats)-1-i), off, seriesColor(j)))
			}
		}
	}
	var entries []legendEntry
	for j, ck := range conns {
		entries = append(entries, legendEntry{ck.String(), []plot.Thumbnailer{barThumb{seriesColor(j), false}}})
	}
	return bars, groupNames(cats, at, conns), entries
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
