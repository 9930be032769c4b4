package report

import (
	"bytes"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/webbench/webbench/harness/numfmt"
)

// chartMarker is written into every chart this renderer draws, so that a
// test can tell its charts from those an older renderer committed.
const chartMarker = "webbench-chart v2"

// sans is the one font of every chart's text: Liberation Sans, bundled
// with gonum/plot, so widths measured here are those the SVG is drawn
// with (Arial, its fallback in the SVG, has the same metrics).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func init() {
	// Every plot, axis, legend and label reads its font from here.
	plot.DefaultFont = sans
	plotter.DefaultFont = sans
}

// palette is the series colours of every chart: viridis sampled at steps
// of even lightness, dark to light, so that series stay apart printed in
// grey and for colour-blind readers. The lightest stops short of yellow,
// which a white page would swallow.
var palette = []color.Color{
	color.RGBA{0x44, 0x01, 0x54, 0xff}, // dark purple
	color.RGBA{0x3b, 0x52, 0x8b, 0xff}, // blue
	color.RGBA{0x21, 0x91, 0x8c, 0xff}, // teal
	color.RGBA{0x5e, 0xc9, 0x62, 0xff}, // green
	color.RGBA{0xb5, 0xde, 0x2b, 0xff}, // yellow-green
}

// dashes and glyphs tell series apart where colours repeat or print alike:
// their cycles (4 and 6) are prime to the palette's 5.
var (
	dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
)

// seriesColor is the colour of series i.
func seriesColor(i int) color.Color { return palette[i%len(palette)] }

// styleLine gives line i its colour, dash and glyph.
func styleLine(l *plotter.Line, s *plotter.Scatter, i int) {
	l.LineStyle.Color, l.LineStyle.Width = seriesColor(i), vg.Points(1.5)
	l.LineStyle.Dashes = dashes[i%len(dashes)]
	s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = seriesColor(i), glyphs[i%len(glyphs)], vg.Points(3)
}

// legendEntry is one entry of a chart's legend: its name and what its
// thumbnail shows.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// textStyle is the style of a chart's small text (legend, bar labels).
func textStyle() text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, 10), Handler: plot.DefaultTextHandler, YAlign: draw.YCenter}
}

// Legend layout, below the plot: rows of entries, each a thumbnail and its
// name, wrapped at the figure's width.
const (
	legendThumb = vg.Length(22) // a thumbnail's width
	legendGap   = vg.Length(5)  // between a thumbnail and its name
	legendSep   = vg.Length(14) // between two entries of a row
	legendRow   = vg.Length(15) // a row's height
	legendPad   = vg.Length(8)  // the figure's margin around the legend
)

// placed is a legend entry at its place: its row, its left edge, and its
// name as shown (shortened when it would not fit the figure's width).
type placed struct {
	legendEntry
	row  int
	left vg.Length
}

// layoutLegend wraps entries into rows no wider than w, shortening a name
// that alone would pass it, and says how many rows it took.
func layoutLegend(entries []legendEntry, w vg.Length) ([]placed, int) {
	sty := textStyle()
	room := w - 2*legendPad
	var out []placed
	row, x := 0, vg.Length(0)
	for _, e := range entries {
		e.name = shorten(sty, e.name, room-legendThumb-legendGap)
		ew := legendThumb + legendGap + sty.Width(e.name)
		if x > 0 && x+ew > room {
			row, x = row+1, 0
		}
		out = append(out, placed{e, row, legendPad + x})
		x += ew + legendSep
	}
	if len(out) == 0 {
		return nil, 0
	}
	return out, row + 1
}

// shorten cuts s, ending it with "…", until it is no wider than w.
func shorten(sty text.Style, s string, w vg.Length) string {
	r := []rune(s)
	for len(r) > 1 && sty.Width(string(r)) > w {
		r = append(r[:len(r)-2], '…')
	}
	return string(r)
}

// renderChart draws p in a w×h area with its legend below it, where it
// takes none of the plot's width and covers no line, and returns the SVG.
func renderChart(p *plot.Plot, w, h vg.Length, entries []legendEntry) ([]byte, error) {
	placedEntries, rows := layoutLegend(entries, w)
	legendH := vg.Length(0)
	if rows > 0 {
		legendH = vg.Length(rows)*legendRow + legendPad
	}
	img := vgsvg.New(w, h+legendH)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, 0, legendH, 0))
	sty := textStyle()
	for _, e := range placedEntries {
		top := legendH - legendPad/2 - vg.Length(e.row)*legendRow
		mid := top - legendRow/2
		thumb := draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{
			Min: vg.Point{X: e.left, Y: mid - 5},
			Max: vg.Point{X: e.left + legendThumb, Y: mid + 5},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&thumb)
		}
		dc.FillText(sty, vg.Point{X: e.left + legendThumb + legendGap, Y: mid}, e.name)
	}
	var b bytes.Buffer
	if _, err := img.WriteTo(&b); err != nil {
		return nil, err
	}
	return finish(b.Bytes()), nil
}

// finish marks an SVG as this renderer's and gives its font family the
// fallbacks a viewer without Liberation Sans needs to stay sans-serif.
func finish(svg []byte) []byte {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j >= 0 {
			s = s[:i+j+1] + "\n<desc>" + chartMarker + "</desc>" + s[i+j+1:]
		}
	}
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	return []byte(s)
}

// logTicks label a log axis at its powers of ten and, where the range
// holds fewer than two of those, at 2× and 5× too, so that an axis within
// one decade still reads; label formats a tick's value.
type logTicks struct{ label func(float64) string }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	majors := 0
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		if v := math.Pow(10, e); v >= lo && v <= hi {
			majors++
		}
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			if v < lo || v > hi {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (majors < 2 && (m == 2 || m == 5)) {
				tk.Label = t.label(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// countLabel labels a count ("20,000"); msLabel a duration in ms ("0.5", "20").
func countLabel(v float64) string { return numfmt.Count(int64(math.Round(v))) }
func msLabel(v float64) string {
	if v >= 1000 {
		return countLabel(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
