package study

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/webbench/webbench/harness/analysis"
	"github.com/webbench/webbench/harness/internal/safefile"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/stats"
)

// Run is one committed run a study reads.
type Run struct {
	Name string // runs/<label>, as study.yaml names it
	*results.Run
}

// Dirty says the harness that measured the run was built from a tree with
// uncommitted changes, or from no commit at all: what measured it cannot
// be checked out again.
func (r *Run) Dirty() string {
	v := r.Environment.HarnessVersion
	switch {
	case strings.HasSuffix(v, "-dirty"):
		return "built from a dirty tree"
	case v == "" || v == "dev":
		return "built from no recorded commit"
	}
	return ""
}

// LoadRuns reads every run f names, relative to the study's folder dir.
// A run is read from inside that folder only, and once: a name is a clean
// relative path (runs/<label>, which the README links as written), and
// its results.json, symbolic links followed, must lie inside dir and be
// no other name's. Every cell must agree with its own figures
// (results.Cell.Check): a verdict computed from an edited rps would read
// as measured. Every problem is reported, each at study.yaml's line of
// the name and its runs[i] field.
func LoadRuns(dir string, f *File) ([]*Run, error) {
	yml := filepath.Join(dir, "study.yaml")
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	nodes := runNodes(yml)
	var errs matrix.Errors
	var out []*Run
	first := map[string]int{} // resolved results.json → index in f.Runs
	for i, name := range f.Runs {
		e := &matrix.Error{File: yml, Field: fmt.Sprintf("runs[%d]", i)}
		if i < len(nodes) {
			e.Line, e.Col = nodes[i].Line, nodes[i].Column
		}
		path, err := resolveRun(root, dir, name)
		if j, again := first[path]; err == nil && again {
			err = fmt.Errorf("%q is runs[%d] (%q) again: a run is read once", name, j, f.Runs[j])
		}
		var r *results.Run
		if err == nil {
			first[path] = i
			r, err = readRun(path, name)
		}
		if err != nil {
			e.Msg = err.Error()
			errs = append(errs, e)
			continue
		}
		out = append(out, &Run{Name: name, Run: r})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// resolveRun is the real path of run name's results.json, which must lie
// inside root (the study's folder, links resolved).
func resolveRun(root, dir, name string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(name)))
	switch {
	case filepath.IsAbs(name):
		return "", fmt.Errorf("%q is an absolute path: a study reads only runs inside its own folder; name one such as runs/<label>", name)
	case clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("%q leads outside the study's folder: a study reads only runs inside it; name one such as runs/<label>", name)
	case clean != name:
		return "", fmt.Errorf("%q: write it %q (the README links the name as written)", name, clean)
	}
	file := filepath.Join(dir, clean, "results.json")
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", fmt.Errorf("%q: no results.json to read: %w", name, err)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q: %s leads to %s, outside the study's folder %s: a study reads only runs inside it", name, file, real, root)
	}
	return real, nil
}

// readRun reads the results.json at path, of run name, and refuses a cell
// whose figures contradict each other.
func readRun(path, name string) (*results.Run, error) {
	data, err := safefile.Read(path, results.MaxFileSize)
	if err != nil {
		return nil, err
	}
	r, err := results.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range r.Cells {
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("%s: cell %s: %w: a figure its own counts contradict is not judged; measure the run again, or restore its results.json", name, c.ID(), err)
		}
	}
	return r, nil
}

// runNodes are the nodes of study.yaml's runs list, for the line of each
// name; nil when the file cannot be read again (an error then names the
// file and field without a line).
func runNodes(path string) []*yaml.Node {
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	doc := root.Content[0]
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "runs" && doc.Content[i+1].Kind == yaml.SequenceNode {
			return doc.Content[i+1].Content
		}
	}
	return nil
}

// cell is the cell of r with id, nil when r has none. Controls are found
// by their own id, "… (control)".
func (r *Run) cell(id string) *results.Cell {
	for _, c := range r.Cells {
		if c != nil && c.ID() == id {
			return c
		}
	}
	return nil
}

// metrics read one figure of a trial.
var metrics = map[string]func(t results.Trial) float64{
	"rps":          func(t results.Trial) float64 { return t.RPS },
	"mbps":         func(t results.Trial) float64 { return perSecond(float64(t.BytesRead), t.Seconds) / 1e6 },
	"latency_mean": func(t results.Trial) float64 { return t.LatencyMS.Mean },
	"latency_max":  func(t results.Trial) float64 { return t.LatencyMS.Max },
	"errors":       func(t results.Trial) float64 { return float64(t.Errors) },
	"mem_peak":     func(t results.Trial) float64 { return t.TargetMemPeakMiB },
}

func perSecond(n, s float64) float64 {
	if s <= 0 {
		return 0
	}
	return n / s
}

// Ratio is A ÷ B in one metric: the median of trial-by-trial ratios with
// its 95% interval (min…max below six pairs), or, for a study that kept
// its best run, the best trial of A over the best trial of B (N 1).
type Ratio struct {
	Value, Lo, Hi float64
	N             int
	HasCI         bool
}

// ratio computes a ÷ b as statistic says; false when no trial pairs.
func ratio(a, b *results.Cell, metric, statistic string) (Ratio, bool) {
	get := metrics[metric]
	if statistic == "best" {
		ta, tb := best(a), best(b)
		if ta == nil || tb == nil || get(*tb) == 0 {
			return Ratio{}, false
		}
		v := get(*ta) / get(*tb)
		return Ratio{Value: v, Lo: v, Hi: v, N: 1}, true
	}
	pr, ok := analysis.PairedBy(a, b, get)
	return Ratio{Value: pr.Ratio, Lo: pr.Lo, Hi: pr.Hi, N: pr.N, HasCI: pr.HasCI}, ok
}

// best is the trial of c with the most good responses per second: the run
// a study that "kept the best" would have shown.
func best(c *results.Cell) *results.Trial {
	var b *results.Trial
	for i := range c.Trials {
		if b == nil || c.Trials[i].RPS > b.RPS {
			b = &c.Trials[i]
		}
	}
	return b
}

// Floor is what an A/A control of the run says about noise in one metric:
// Factor is how far from 1 the pair's interval reaches, as a factor, so a
// ratio r is beyond it when r > Factor or r < 1/Factor. It is symmetric:
// a ratio and its inverse read alike.
type Floor struct {
	Factor float64
	Cell   string // the controlled cell
	N      int
}

// Percent is the floor as the ±% the tables print.
func (f Floor) Percent() float64 { return 100 * (f.Factor - 1) }

// Beyond says whether r lies outside the floor.
func (f Floor) Beyond(r float64) bool { return math.Abs(math.Log(r)) > math.Log(f.Factor) }

// median is the median of the metric over c's trials.
func median(c *results.Cell, metric string) float64 {
	var xs []float64
	for _, t := range c.Trials {
		xs = append(xs, metrics[metric](t))
	}
	return stats.Describe(xs).Median
}
