package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/results"
)

// How a text's box is estimated from the SVG alone: its advance width in
// Liberation Sans at its font-size (what the renderer lays out with, and
// Arial's, its first fallback) widened by textSlack for a viewer that
// falls back to a wider sans (DejaVu Sans runs about 8% wider), and its
// height the ink of Latin text: from inkAscent em above the baseline (the
// top of an "l" or a bracket; Liberation Sans's capitals stand 0.69 em)
// to inkDescent em below it (a "p" or a bracket's foot). Not the font's
// full ascent and descent (1.12 em): gonum sets the lines of a text 1 em
// apart, and their ink does not meet. Two boxes overlap when they share
// more than overlapTol points both across and down.
const (
	textSlack  = 1.10
	inkAscent  = 0.75
	inkDescent = 0.21
	overlapTol = 0.5
)

// textBox is where one <text> element's ink may fall, in the SVG's user
// space (y down).
type textBox struct {
	text                   string
	minX, minY, maxX, maxY float64
}

// affine is an SVG transform: x' = a·x + c·y + e, y' = b·x + d·y + f.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{1, 0, 0, 1, 0, 0}

// then is m applied after n: the transform of an element whose parent's
// transform is m and its own n.
func (m affine) then(n affine) affine {
	return affine{
		m.a*n.a + m.c*n.b, m.b*n.a + m.d*n.b,
		m.a*n.c + m.c*n.d, m.b*n.c + m.d*n.d,
		m.a*n.e + m.c*n.f + m.e, m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

var transformOp = regexp.MustCompile(`(\w+)\s*\(([^)]*)\)`)

// parseTransform reads an SVG transform list (translate, scale, rotate
// about the origin, matrix).
func parseTransform(s string) (affine, error) {
	m := identity
	for _, op := range transformOp.FindAllStringSubmatch(s, -1) {
		var v []float64
		for _, f := range strings.FieldsFunc(op[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %w", s, err)
			}
			v = append(v, x)
		}
		var n affine
		switch {
		case op[1] == "translate" && len(v) == 1:
			n = affine{1, 0, 0, 1, v[0], 0}
		case op[1] == "translate" && len(v) == 2:
			n = affine{1, 0, 0, 1, v[0], v[1]}
		case op[1] == "scale" && len(v) == 1:
			n = affine{v[0], 0, 0, v[0], 0, 0}
		case op[1] == "scale" && len(v) == 2:
			n = affine{v[0], 0, 0, v[1], 0, 0}
		case op[1] == "rotate" && len(v) == 1:
			sin, cos := math.Sincos(v[0] * math.Pi / 180)
			n = affine{cos, sin, -sin, cos, 0, 0}
		case op[1] == "matrix" && len(v) == 6:
			n = affine{v[0], v[1], v[2], v[3], v[4], v[5]}
		default:
			return m, fmt.Errorf("transform %q: cannot read %s", s, op[0])
		}
		m = m.then(n)
	}
	return m, nil
}

var fontSize = regexp.MustCompile(`font-size:\s*([0-9.]+)(px|pt)?`)

// textBoxes are the boxes of svg's <text> elements, each measured as the
// constants above say.
func textBoxes(svg []byte) ([]textBox, error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	stack := []affine{identity}
	var out []textBox
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			m, err := parseTransform(attr["transform"])
			if err != nil {
				return nil, err
			}
			m = stack[len(stack)-1].then(m)
			stack = append(stack, m)
			if el.Name.Local != "text" {
				continue
			}
			var body string
			if err := dec.DecodeElement(&body, &el); err != nil {
				return nil, err
			}
			stack = stack[:len(stack)-1]
			b, err := measure(m, attr, body)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// measure is the box of one <text> drawn with transform m: the baseline
// starts at (x, y), as gonum writes text (anchored at its start).
func measure(m affine, attr map[string]string, body string) (textBox, error) {
	x, errX := strconv.ParseFloat(attr["x"], 64)
	y, errY := strconv.ParseFloat(attr["y"], 64)
	fs := fontSize.FindStringSubmatch(attr["style"])
	if errX != nil || errY != nil || fs == nil {
		return textBox{}, fmt.Errorf("text %q: no x, y or font-size", body)
	}
	size, _ := strconv.ParseFloat(fs[1], 64)
	face := font.DefaultCache.Lookup(sans, font.Length(size))
	w := float64(face.Width(body)) * textSlack
	top, bottom := y-inkAscent*size, y+inkDescent*size
	b := textBox{text: body, minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	for _, c := range [][2]float64{{x, top}, {x + w, top}, {x, bottom}, {x + w, bottom}} {
		px, py := m.apply(c[0], c[1])
		b.minX, b.maxX, b.minY, b.maxY = min(b.minX, px), max(b.maxX, px), min(b.minY, py), max(b.maxY, py)
	}
	return b, nil
}

// overlaps lists the pairs of svg's texts whose boxes overlap.
func overlaps(svg []byte) ([]string, error) {
	boxes, err := textBoxes(svg)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if min(a.maxX, b.maxX)-max(a.minX, b.minX) > overlapTol && min(a.maxY, b.maxY)-max(a.minY, b.minY) > overlapTol {
				out = append(out, fmt.Sprintf("%q [%.0f,%.0f–%.0f,%.0f] overlaps %q [%.0f,%.0f–%.0f,%.0f]",
					a.text, a.minX, a.minY, a.maxX, a.maxY, b.text, b.minX, b.minY, b.maxX, b.maxY))
			}
		}
	}
	return out, nil
}

// checkNoOverlap fails t for each pair of overlapping texts of svg.
func checkNoOverlap(t *testing.T, name string, svg []byte) {
	t.Helper()
	found, err := overlaps(svg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, o := range found {
		t.Errorf("%s: %s", name, o)
	}
}

// chartKind is a chart's kind: its file name up to the scenario.
func chartKind(file string) string {
	for _, k := range []string{"latency-vs-rps", "rps-vs-cores", "rps-vs-param", "rps", "latency"} {
		if strings.HasPrefix(file, k+"-") {
			return k
		}
	}
	return file
}

// overlapFixtures are runs that between them draw every kind of chart,
// with long names, two-line labels, generator-bound bars, intervals of
// both kinds, several connection settings and an objective.
func overlapFixtures(t *testing.T) map[string]*results.Run {
	t.Helper()
	base, err := results.Read("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	wide := &results.Run{FinishedAt: &time.Time{}}
	names := []string{"aspnetcore-minimal:aot-trimmed", "go-nethttp", "node-http:cluster", "rust-axum", "python-granian:asgi", "java-vertx"}
	for i, n := range names {
		for _, cpus := range []int{1, 2} {
			for _, conns := range []int{64, 512} {
				rps := float64(20000*(i+1)*cpus) * (1 + float64(conns)/1024)
				trials := []float64{rps, rps * 1.02, rps * 0.97, rps * 1.01, rps * 0.99, rps * 1.03}
				if i%2 == 1 {
					trials = trials[:3] // too few for an interval: min…max
				}
				c := cell(n, cpus, trials...)
				c.Connections = conns
				for j := range c.Trials {
					c.Trials[j].LatencyMS = results.Latency{P50: float64(i + 1), P75: float64(i + 2), P90: float64(2*i + 3), P95: float64(3*i + 4), P99: float64(5*i + 6)}
				}
				c.Summary = analysis.Summarize(c.Trials, "median")
				if i == 0 {
					c.Summary.BoundBy = []string{"load generator CPU ≥ 90% in 1 trial(s)"}
				}
				wide.Cells = append(wide.Cells, c)
			}
		}
	}
	capacity := &results.Run{FinishedAt: &time.Time{}}
	capacity.Matrix.SLO = []results.Objective{{Percentile: "p99", Max: results.Duration(10 * time.Millisecond)}}
	for i, n := range names[:4] {
		for k, rate := range []int{1000, 2000, 4000, 8000, 16000, 32000} {
			held := min(float64(rate), float64(9000*(i+1)))
			capacity.Cells = append(capacity.Cells, fixedRateCell(n, rate, held, float64(i+1)*math.Pow(2.2, float64(k))))
		}
	}
	return map[string]*results.Run{"testdata/run": base, "wide": wide, "capacity": capacity}
}

// fixedRateCell is target's cell at rate, open-loop, one trial.
func fixedRateCell(target string, rate int, rps, p99 float64) *results.Cell {
	c := cell(target, 1, rps)
	c.Rate, c.Generator = rate, &results.Generator{Name: "openloop"}
	tr := &c.Trials[0]
	tr.Requests, tr.Seconds, tr.OpenLoop = int64(rps*10), 10, &results.Schedule{}
	tr.LatencyMS = results.Latency{P50: p99 / 4, P90: p99 / 2, P99: p99, Max: 2 * p99}
	c.Summary = analysis.Summarize(c.Trials, "median")
	return c
}

// Every kind of chart, drawn from the fixtures, carries the renderer's
// marker and has no two texts over each other.
func TestChartTextsDoNotOverlap(t *testing.T) {
	kinds := map[string]bool{}
	for name, run := range overlapFixtures(t) {
		charts, err := Charts(run)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range charts {
			kinds[chartKind(c.File)] = true
			if !bytes.Contains(c.SVG, []byte(chartMarker)) {
				t.Errorf("%s %s: no %q marker", name, c.File, chartMarker)
			}
			checkNoOverlap(t, name+" "+c.File, c.SVG)
		}
	}
	for _, k := range []string{"rps", "rps-vs-cores", "rps-vs-param", "latency", "latency-vs-rps"} {
		if !kinds[k] {
			t.Errorf("the fixtures draw no %s chart (drew %v)", k, kinds)
		}
	}
}

// Every chart committed under results/ that this renderer drew has no two
// texts over each other; one an older renderer drew (without the marker)
// is skipped until its run is re-rendered.
func TestCommittedChartTextsDoNotOverlap(t *testing.T) {
	files, _ := filepath.Glob("../../results/*/charts/*.svg")
	if len(files) == 0 {
		t.Skip("no committed charts under ../../results")
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../../results/"), func(t *testing.T) {
			svg, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(svg, []byte(chartMarker)) {
				t.Skipf("%s was drawn by an older renderer (no %q marker): re-render its run (bin/harness report DIR) to check it", f, chartMarker)
			}
			checkNoOverlap(t, f, svg)
		})
	}
}

// The check finds texts drawn over each other: two labels at one point,
// a tick label under a long one, and the old right-hand legend whose
// entries ran into each other (testdata/overlap/legend-v1.svg, as an
// older renderer drew it).
func TestOverlapCheckCatches(t *testing.T) {
	p := plot.New()
	l, err := plotter.NewLabels(plotter.XYLabels{
		XYs:    plotter.XYs{{X: 1, Y: 1}, {X: 1, Y: 1}, {X: 2, Y: 2}},
		Labels: []string{"generator-bound", "75,000 [72,000–77,900]", "alone"},
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	svg, err := renderChart(p, 300, 200, []legendEntry{{name: "one"}})
	if err != nil {
		t.Fatal(err)
	}
	found, err := overlaps(svg)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.Contains(found[0], "generator-bound") {
		t.Errorf("two labels at one point: found %q, want the one pair", found)
	}
	old, err := os.ReadFile("testdata/overlap/legend-v1.svg")
	if err != nil {
		t.Fatal(err)
	}
	if found, err := overlaps(old); err != nil || len(found) == 0 {
		t.Errorf("the old overlapping legend: found %q (%v), want overlaps", found, err)
	}
	if slices.ContainsFunc([][]byte{old}, func(b []byte) bool { return bytes.Contains(b, []byte(chartMarker)) }) {
		t.Error("the old chart carries the new renderer's marker")
	}
}
