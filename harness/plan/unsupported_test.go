package plan

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/loadgen"
	"github.com/webbench/webbench/harness/matrix"
)

// The generators a matrix may name are the load generator's Tools, and a
// cell a tool cannot measure as asked is skipped naming the setting; a
// cell skipped already keeps its reason, and a generator that is no tool
// is named.
func TestGeneratorsAreTools(t *testing.T) {
	names := slices.Sorted(maps.Keys(loadgen.Tools))
	if got := slices.Sorted(slices.Values(matrix.GeneratorNames)); !slices.Equal(got, names) {
		t.Errorf("matrix.GeneratorNames %v, loadgen.Tools %v", got, names)
	}
	m := &matrix.Matrix{Load: matrix.Defaults, Scenarios: []matrix.Scenario{{Name: "s", Expect: matrix.Expect{Status: 200}}}}
	m.Load.Requests, m.Load.Duration = 1000, 0
	cells := []matrix.Cell{{Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "wrk"}}, {Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "ab"}},
		{Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "h2load", Close: true}}, {Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "bombardier"}},
		{Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "wrk"}, Skip: "too few cores"}, {Key: cellid.Key{Scenario: "s", Connections: 8, Generator: "nope"}}}
	Unsupported(m, cells)
	for i, want := range []string{"no request count", "", "Connection: close", "", "too few cores", `no load generator "nope"`} {
		if got := cells[i].Skip; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: skip %q, want %q", cells[i].Generator, got, want)
		}
	}
}

// A scenario that expects another status than 200 is measured by a tool
// that can tell it; ab, which counts only 2xx, skips it.
func TestUnsupportedReadsTheScenarioStatus(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Defaults, Scenarios: []matrix.Scenario{{Name: "nf", Expect: matrix.Expect{Status: 404}}}}
	m.Load.Requests, m.Load.Duration = 1000, 0
	cells := []matrix.Cell{{Key: cellid.Key{Scenario: "nf", Connections: 8, Generator: "ab"}}, {Key: cellid.Key{Scenario: "nf", Connections: 8, Generator: "bombardier"}}}
	Unsupported(m, cells)
	if !strings.Contains(cells[0].Skip, "404") || cells[1].Skip != "" {
		t.Errorf("ab: skip %q, want one naming 404; bombardier: skip %q, want none", cells[0].Skip, cells[1].Skip)
	}
}

// A pipelined cell goes to its tool pipelined: the tools that cannot
// pipeline skip it, naming the depth; wrk and h2load take it.
func TestPipelinedCellsSkipWhatCannotPipeline(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Defaults, Scenarios: []matrix.Scenario{{Name: "s", Pipeline: 16, Expect: matrix.Expect{Status: 200}}}}
	m.Load.Duration = 2 * time.Second
	var cells []matrix.Cell
	for _, gen := range []string{"wrk", "h2load", "bombardier"} {
		cells = append(cells, matrix.Cell{Key: cellid.Key{Scenario: "s", Connections: 8, Generator: gen}, Pipeline: 16})
	}
	Unsupported(m, cells)
	for i, want := range []string{"", "", "bombardier cannot pipeline (scenario pipeline: 16)"} {
		if got := cells[i].Skip; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: skip %q, want %q", cells[i].Generator, got, want)
		}
	}
	if s := Spec(m, cells[0], "http://t/", 200); s.Pipeline != 16 || s.URL != "http://t/" || s.Duration != 2*time.Second || s.Connections != 8 {
		t.Errorf("spec %+v, want pipeline 16, 8 connections for 2 s at http://t/", s)
	}
}

// A cell of the requests axis runs its own count in place of the load's
// duration.
func TestSpecOfARequestCount(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Defaults}
	m.Load.Duration = 10 * time.Second
	s := Spec(m, matrix.Cell{Key: cellid.Key{Connections: 4, Requests: 5000, Rate: 300, Close: true}}, "", 204)
	if s.Requests != 5000 || s.Duration != 0 || s.Rate != 300 || !s.Close || s.Expect != 204 {
		t.Errorf("spec %+v, want 5000 requests, no duration, rate 300, close, expect 204", s)
	}
}
