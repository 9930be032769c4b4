package runner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// What a resume keeps of an earlier results.json, decided from the file
// and the matrix alone: finished and partly measured cells the matrix
// makes, whose figures hold up; every other measured cell is named in a
// warning; skipped and empty cells go without a word.
func TestKeptCells(t *testing.T) {
	m := &matrix.Matrix{Load: matrix.Defaults}
	m.Load.Trials, m.Load.Duration = 3, 10*time.Second
	trial := func(rps float64) results.Trial {
		return results.Trial{Result: results.Result{RPS: rps, Requests: int64(rps * 10), Seconds: 10}}
	}
	cell := func(target string, status results.Status, trials ...results.Trial) *results.Cell {
		return &results.Cell{Target: target, Scenario: "s", CPUs: 1, Connections: 8, Status: status, Trials: trials}
	}
	whole := cell("a", results.OK, trial(100), trial(110), trial(90))
	part := cell("b", results.OK, trial(100))
	cells := []*results.Cell{
		whole, part,
		cell("c", results.Failed, trial(100)),         // failed: measured again
		cell("d", results.Skipped),                    // judged again, silently
		cell("e", results.OK),                         // no trial: silently
		cell("zzz", results.OK, trial(100)),           // not the matrix's
		whole,                                         // a second copy
		cell("f", results.OK, trial(100), trial(1e9)), // figures that do not add up
		cell("g", results.OK, slices.Repeat([]results.Trial{trial(100)}, 4)...), // too many
	}
	made := map[string]bool{}
	for _, c := range cells {
		if c.Target != "zzz" {
			made[c.ID()] = true
		}
	}
	cells[7].Trials[1].Requests = 1000 // 1e9 rps from 1,000 requests in 10 s
	kept, warnings := keptCells(cells, m, made, true)
	if !slices.Equal(kept, []*results.Cell{whole, part}) {
		t.Errorf("kept %v, want a and b", kept)
	}
	want := []string{"c/s/1cpu/c8 of results.json not kept (it failed)", "zzz/s/1cpu/c8 of results.json not kept (the matrix makes no such cell)",
		"a/s/1cpu/c8 of results.json not kept (a second copy of a cell)", "f/s/1cpu/c8", "g/s/1cpu/c8"}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.Contains(warnings[i], w) {
			t.Errorf("warning %d: %q, want it to say %q", i, warnings[i], w)
		}
	}
	// Cell by cell, a partly measured cell cannot be finished in order.
	if kept, _ := keptCells([]*results.Cell{whole, part}, m, made, false); !slices.Equal(kept, []*results.Cell{whole}) {
		t.Errorf("sequential: kept %v, want a alone", kept)
	}
}
