// Package plan owns what is decided about a matrix before anything runs:
// which cells a selection expands to and on which cores each runs (Cells,
// CellsApart, Count, and LeftOut for what the selection drops), which of
// them a load generator cannot measure as the matrix asks (Unsupported),
// and how long building their images and measuring them takes (Estimate,
// EstimateWith, BuildTime). New gathers all of it into a Plan, which the
// plan command prints; run applies the same rules, so that plan lists what
// run will do.
//
// A plan asks no engine: the cores are this machine's, and every base
// image with a local stand-in is counted as built from it.
package plan

import (
	"maps"
	"slices"
	"time"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/matrix"
)

// Options are what a plan assumes beyond the matrix and its selection.
type Options struct {
	// Online are the cores of the machine the plan assumes: the targets'
	// and the load generator's, or with Apart each machine's.
	Online cpuset.Set
	// Apart puts the load generator on a machine of its own with as many
	// cores as Online. TargetReserve and LoadgenReserve are how many of
	// each machine's first cores the cells leave alone.
	Apart                         bool
	TargetReserve, LoadgenReserve int
	// Book is this machine's record of build and visit times; nil is an
	// empty one, whose figures are the documented defaults.
	Book *buildtime.Book
	// Sequential estimates the trials of a cell run one after another in
	// one visit, not interleaved with other cells' (a visit each).
	Sequential bool
}

// Plan is what running a selection of a matrix would do, as New found it.
type Plan struct {
	// Cells are every selected cell in matrix order, each placed on its
	// cores; one that will not run has Skip set, saying why.
	Cells []matrix.Cell
	// Runnable is how many of Cells will run.
	Runnable int
	// CPUs is how many cores the plan assumed each machine has.
	CPUs int
	// Placements say, once each, what a machine with too few cores did in
	// place of giving every service and the load generator cores of their
	// own, in the order of the first cell each concerns.
	Placements []Placement
	// LeftOut are lines naming what the profile's only: and the selection
	// leave out of the matrix (see LeftOut).
	LeftOut []string
	// Targets are the targets with a selected cell, in matrix order.
	Targets []Target
	// BaseImages are the sorted keys of the base images the run needs,
	// the load generator's among them.
	BaseImages []string
	// Builds are the build folders of the target images the run would
	// build, each once however many targets share it, and once per
	// revision ("folder@rev") on the revision axis.
	Builds []string
	// BuildTime is about how long building Builds, the stand-ins of
	// BaseImages and the load generator takes on an empty engine without
	// a registry; BuildTimeLearned is false when a figure in it is a
	// documented default rather than learned on this machine.
	BuildTime        time.Duration
	BuildTimeLearned bool
	// Measure is about how long measuring the runnable cells takes, with
	// each visit's overhead learned per target where Book knows it.
	Measure time.Duration
	// Load is the matrix's load; Requests the per-trial request counts a
	// trial runs, nil when trials run for Load.Duration (Measure times a
	// count at GuessedRPS).
	Load     matrix.Load
	Requests []int64
}

// Placement is one way cells were placed on a machine with too few cores,
// and how many runnable cells were placed so.
type Placement struct {
	Note  string
	Cells int
}

// Target is what the plan knows of one target before building it.
type Target struct {
	Name string
	// Cells is how many selected cells the target has, skipped or not;
	// Images how many images (one per service) it builds.
	Cells, Images int
	// Unpulled are the base images it needs that have no local stand-in:
	// without the engine having them or a registry to pull them from, run
	// skips its cells, and it builds nothing.
	Unpulled []string
	// Undeclared are the images its Dockerfiles name in FROM that are not
	// under the matrix's images:.
	Undeclared []Undeclared
}

// Undeclared is a base image a Dockerfile names directly in FROM, and
// what to do about it.
type Undeclared struct {
	Image, Fix string
}

// loadgenImages are the base image keys the load generator's image is
// built from.
var loadgenImages = []string{"debian", "golang"}

// New plans the cells of m that sel selects: it expands and places them,
// marks those a load generator cannot measure as asked, and estimates
// building and measuring them.
func New(m *matrix.Matrix, sel matrix.Selector, o Options) *Plan {
	book := o.Book
	if book == nil {
		book = buildtime.Open("") // no file: the documented defaults
	}
	var cells []matrix.Cell
	if o.Apart {
		cells = CellsApart(m, sel, o.Online[min(o.TargetReserve, len(o.Online)):], o.Online[min(o.LoadgenReserve, len(o.Online)):])
	} else {
		cells = Cells(m, sel, o.Online)
	}
	Unsupported(m, cells)
	p := &Plan{Cells: cells, CPUs: len(o.Online), Placements: placements(cells), LeftOut: LeftOut(m, sel, o.Online), Load: m.Load}
	for _, c := range cells {
		if c.Skip == "" {
			p.Runnable++
		}
	}
	if counts := m.Requests; len(counts) > 0 || m.Load.Requests > 0 {
		if len(counts) == 0 {
			counts = []int64{m.Load.Requests}
		}
		p.Requests = counts
	}
	visit := func(target string) time.Duration { return book.Visit(target, VisitOverhead) }
	p.Measure = EstimateWith(m, cells, visit, GuessedRPS, !o.Sequential)
	keys := p.targets(m)
	p.BaseImages = slices.Sorted(maps.Keys(keys))
	p.BuildTime, p.BuildTimeLearned = BuildTime(book, p.BaseImages, len(p.Builds))
	return p
}

// placements gathers the placement notes of the runnable cells.
func placements(cells []matrix.Cell) []Placement {
	var out []Placement
	at := map[string]int{}
	for _, c := range cells {
		if c.Skip != "" || c.Placement == "" {
			continue
		}
		i, ok := at[c.Placement]
		if !ok {
			i = len(out)
			at[c.Placement] = i
			out = append(out, Placement{Note: c.Placement})
		}
		out[i].Cells++
	}
	return out
}

// targets fills p.Targets and p.Builds from m and p.Cells, and returns the
// keys of the base images the run needs.
func (p *Plan) targets(m *matrix.Matrix) map[string]bool {
	perTarget, revs := map[string]int{}, map[string][]string{}
	for _, c := range p.Cells {
		perTarget[c.Target]++
		if rev := c.Key.Axis(axis.Revision); !slices.Contains(revs[c.Target], rev) {
			revs[c.Target] = append(revs[c.Target], rev) // each revision is a build of its own
		}
	}
	keys := map[string]bool{}
	for _, k := range loadgenImages {
		keys[k] = true
	}
	for _, t := range m.Targets {
		if perTarget[t.Name] == 0 {
			continue
		}
		pt := Target{Name: t.Name, Cells: perTarget[t.Name], Images: len(t.Services) * len(revs[t.Name])}
		for _, k := range t.Images() {
			keys[k] = true
			if !baseimage.HasStandIn(k) {
				pt.Unpulled = append(pt.Unpulled, m.Images[k])
			}
		}
		if len(pt.Unpulled) == 0 { // else, without a registry, it is skipped: nothing to build
			for _, s := range t.Services {
				for _, rev := range revs[t.Name] {
					if b := revisionBuild(s.Build, rev); !slices.Contains(p.Builds, b) { // a folder several targets share is built once
						p.Builds = append(p.Builds, b)
					}
				}
			}
		}
		for _, img := range t.Undeclared() {
			pt.Undeclared = append(pt.Undeclared, Undeclared{Image: img, Fix: matrix.UndeclaredFix(img)})
		}
		p.Targets = append(p.Targets, pt)
	}
	return keys
}
